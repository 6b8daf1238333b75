#include "run_all/noise_study.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <algorithm>
#include <set>
#include <utility>
#include <vector>
#include <stdexcept>

#include "common/test_files.h"
#include "reports/session_parts.h"

namespace trickbench {
namespace run_all {
namespace noise {
namespace {

TEST(Tally, CountsAndRates) {
  Tally t;
  EXPECT_EQ(t.Rate(), 0);
  t.Add(true);
  t.Add(false);
  t.Add(false);
  t.Add(true);
  EXPECT_EQ(t.comparisons, 4);
  EXPECT_EQ(t.hits, 2);
  EXPECT_DOUBLE_EQ(t.Rate(), 0.5);
  Tally pooled;
  pooled.Add(t);
  pooled.Add(t);
  EXPECT_EQ(pooled.comparisons, 8);
  EXPECT_EQ(pooled.hits, 4);
}

TEST(SettingStudy, TheMdeIsTheMedianOfItsComparisons) {
  SettingStudy b;
  EXPECT_FALSE(b.Mde().has_value());
  b.mdes = {0.30, 0.10, 0.20};
  EXPECT_DOUBLE_EQ(*b.Mde(), 0.20);
  b.mdes.push_back(0.40);
  EXPECT_DOUBLE_EQ(*b.Mde(), 0.25);
}

TEST(DefaultTricks, AtLeastEightDistinct) {
  const auto& t = DefaultTricks();
  EXPECT_GE(t.size(), 8u);
  EXPECT_EQ(std::set<std::string>(t.begin(), t.end()).size(), t.size());
}

TEST(AnalyzeStudy, NoSessionsNoComparisons) {
  const StudyResult r = AnalyzeStudy({}, {});
  EXPECT_TRUE(r.settings.empty());
  EXPECT_EQ(r.pooled_false_alarms.comparisons, 0);
  const results::Json j = ToJson(r);
  EXPECT_TRUE(j["pooled_false_alarms"]["rate"].is_null());
  EXPECT_TRUE(j["pooled_false_alarms"]["upper_95"].is_null());
}

// The study's two headline figures: the median MDE over settings, and how many settings'
// false-alarm rates are bounded at 7 %: 0 of 58 is (the reason for 12 A/A sessions, 66
// comparisons); 1 of 58 is not, and neither is 0 of 21 (7 sessions).
TEST(StudyResult, MedianMdeAndSettingsBoundedAtSevenPercent) {
  StudyResult r;
  EXPECT_FALSE(MedianMde(r).has_value());
  EXPECT_EQ(SettingsBoundedBy(r, 0.07), (std::pair<int, int>{0, 0}));
  auto setting = [](int hits, int comparisons, std::vector<double> mdes) {
    SettingStudy b;
    for (int i = 0; i < comparisons; ++i) b.false_alarms.Add(i < hits);
    b.mdes = std::move(mdes);
    return b;
  };
  r.settings = {setting(0, 58, {0.03}), setting(1, 58, {0.05, 0.07}), setting(0, 21, {0.10}),
                setting(0, 0, {})};
  EXPECT_DOUBLE_EQ(*MedianMde(r), 0.06);  // of 0.03, 0.06, 0.10
  EXPECT_EQ(SettingsBoundedBy(r, 0.07), (std::pair<int, int>{3, 1}));
  const results::Json j = ToJson(r);
  EXPECT_DOUBLE_EQ(j["median_mde"].get<double>(), 0.06);
  EXPECT_EQ(j["settings_bounded_7pct"]["bounded"], 1);
  EXPECT_EQ(j["settings_bounded_7pct"]["settings"], 3);
}

// A session's speedup as its report states it: what Spread reads.
stats::Speedup Session(double log_speedup, double log_se, double dof) {
  stats::Speedup s;
  s.speedup = std::exp(log_speedup);
  s.log_se = log_se;
  s.dof = dof;
  return s;
}

std::vector<stats::Speedup> Sessions(const std::vector<double>& log_speedups, double log_se,
                                     double dof) {
  std::vector<stats::Speedup> out;
  for (double x : log_speedups) out.push_back(Session(x, log_se, dof));
  return out;
}

// By hand: estimates 0, 0.1, -0.1 (variance 0.01) with standard errors 0.05 (squared
// 0.0025) on 10 degrees of freedom each: h^2 = 4, h = 2, the between-session sd
// sqrt(0.0075), and p = P(F(2, 30) > 4) = (1 + 2 * 4 / 30)^(-15).
TEST(SessionSpread, TheSessionsVarianceAgainstTheirOwnErrors) {
  SettingStudy b;
  b.sessions = Sessions({0, 0.1, -0.1}, 0.05, 10);
  const std::optional<SessionSpread> s = b.Spread();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->sessions, 3);
  EXPECT_NEAR(s->h, 2, 1e-12);
  EXPECT_NEAR(s->p_value, std::pow(1 + 8.0 / 30, -15), 1e-9);
  EXPECT_NEAR(s->between_sd, std::sqrt(0.0075), 1e-12);
  // Sessions that agree better than their errors: no between-session part at all.
  b.sessions = Sessions({0.01, 0.0, -0.01}, 0.05, 10);
  EXPECT_EQ(b.Spread()->between_sd, 0);
  EXPECT_GT(b.Spread()->p_value, 0.9);
  // Too few sessions, or a session without a standard error: nothing to say.
  b.sessions = Sessions({0.0, 0.1}, 0.05, 10);
  EXPECT_FALSE(b.Spread().has_value());
  b.sessions = Sessions({0.0, 0.1, 0.2}, 0.05, 10);
  b.sessions[1] = Session(0.1, 0, 0);
  EXPECT_FALSE(b.Spread().has_value());
}

// What compare --noise reads (reports/session_parts.h) is what the study wrote: per
// setting its between-session sd and sessions; settings with too few sessions absent.
TEST(SessionSpread, CompareReadsBackWhatTheStudyWrites) {
  StudyResult r;
  SettingStudy b;
  b.trick = "alpha";
  b.case_name = "n64";
  b.variant = "fused";
  b.sessions = Sessions({0, 0.1, -0.1}, 0.05, 10);
  SettingStudy short_one = b;
  short_one.variant = "unfused";
  short_one.sessions = Sessions({0, 0.1}, 0.05, 10);
  r.settings = {b, short_one};
  const std::string path = test_files::TmpDir() + "/noise_study.json";
  test_files::Write(path, ToJson(r).dump(2));
  const reports::SessionParts parts = reports::LoadSessionParts(path);
  ASSERT_EQ(parts.by_setting.size(), 1u);
  const reports::SessionPart* p = parts.Find("alpha", "n64", "fused");
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(p->sd, std::sqrt(0.0075), 1e-12);
  EXPECT_EQ(p->sessions, 3);
  EXPECT_EQ(parts.Find("alpha", "n64", "unfused"), nullptr);
}

// Cochran's Q of a study: the sessions' estimates weighed by their squared errors'
// inverses, against chi-square(sessions - 1) at 0.05 (19.675 for 11 degrees of freedom).
bool CochranFires(const SettingStudy& b) {
  double sum_w = 0, sum_wx = 0, q = 0;
  for (const stats::Speedup& s : b.sessions) {
    const double w = 1 / (s.log_se * s.log_se);
    sum_w += w;
    sum_wx += w * std::log(s.speedup);
  }
  for (const stats::Speedup& s : b.sessions) {
    const double d = std::log(s.speedup) - sum_wx / sum_w;
    q += d * d / (s.log_se * s.log_se);
  }
  return q > 19.675;
}

// Seeded studies of 12 sessions whose standard errors are estimated from 4 processes
// each (3 degrees of freedom), as a quiet setting's are. With no between-session part
// the F test fires at about its level, where Cochran's Q on the same studies fires in
// about half of them (the weights' bias, noise_study.h); with a part as large as the
// errors the F test fires in 44 % (12 sessions of such errors can say little more), and
// between_sd estimates the part.
TEST(SessionSpread, FiresAtItsLevelAndFindsASessionPart) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0, 1);
  std::chi_squared_distribution<double> chi3(3);
  auto study = [&](double session_sd) {
    SettingStudy b;
    const double se = 0.01;
    for (int i = 0; i < 12; ++i) {
      const double log_speedup = 0.03 + session_sd * z(rng) + se * z(rng);
      b.sessions.push_back(Session(log_speedup, se * std::sqrt(chi3(rng) / 3), 3));
    }
    return b;
  };
  int fired_null = 0, cochran_null = 0, fired = 0;
  std::vector<double> parts;
  const int n = 2000;
  for (int k = 0; k < n; ++k) {
    const SettingStudy quiet = study(0);
    fired_null += quiet.Spread()->p_value < 0.05;
    cochran_null += CochranFires(quiet);
    const SessionSpread s = *study(0.01).Spread();
    fired += s.p_value < 0.05;
    parts.push_back(s.between_sd);
  }
  std::cout << "no session part: F test fired " << fired_null << ", Cochran's Q " << cochran_null
            << " of " << n << "; a part of 0.01: F test fired " << fired << "\n";
  EXPECT_NEAR(static_cast<double>(fired_null) / n, 0.05, 3 * 0.0049);
  EXPECT_GT(static_cast<double>(cochran_null) / n, 0.3);
  EXPECT_GT(static_cast<double>(fired) / n, 0.35);
  std::sort(parts.begin(), parts.end());
  EXPECT_NEAR(parts[n / 2], 0.01, 0.003);  // the median estimate of the part's sd
}

}  // namespace
}  // namespace noise
}  // namespace run_all
}  // namespace trickbench
