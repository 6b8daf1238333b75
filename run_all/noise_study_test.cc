#include "run_all/noise_study.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>
#include <stdexcept>

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

}  // namespace
}  // namespace noise
}  // namespace run_all
}  // namespace trickbench
