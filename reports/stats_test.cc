#include "reports/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "stats/simulation.h"
#include "stats/speedup.h"

namespace trickbench {
namespace reports {
namespace {

// Known p-values: R's wilcox.test and scipy's documentation.
TEST(Stats, MannWhitneyExactSmallSamples) {
  const UTest a = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(a.exact);
  EXPECT_DOUBLE_EQ(a.u, 0);
  EXPECT_NEAR(a.p_value, 2.0 / 252, 1e-12);  // wilcox.test: p = 0.007937
  // scipy.stats.mannwhitneyu docs: males vs females, method "exact": U=17, p=0.1111.
  const UTest b = MannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_TRUE(b.exact);
  EXPECT_DOUBLE_EQ(b.u, 17);
  EXPECT_NEAR(b.p_value, 0.1111111111111111, 1e-12);
  EXPECT_NEAR(MannWhitneyU({1, 2, 3}, {4, 5, 6}).p_value, 0.1, 1e-12);
}

TEST(Stats, MannWhitneyAsymptotic) {
  std::vector<double> x, y;
  for (int i = 1; i <= 9; ++i) x.push_back(i), y.push_back(i + 9);
  const UTest a = MannWhitneyU(x, y);  // 9 and 9: normal approximation, as scipy "auto"
  EXPECT_FALSE(a.exact);
  EXPECT_NEAR(a.p_value, 0.0004122948020616911, 1e-12);
  // With ties (tie-corrected variance), value from the formula in scipy's _mannwhitneyu.
  const UTest b =
      MannWhitneyU({1, 2, 2, 3, 4, 5, 6, 7, 8}, {2, 5, 9, 10, 11, 12, 13, 14, 15});
  EXPECT_DOUBLE_EQ(b.u, 10.5);
  EXPECT_NEAR(b.p_value, 0.009010371424827674, 1e-12);
  EXPECT_DOUBLE_EQ(MannWhitneyU({3, 3, 3}, {3, 3, 3}).p_value, 1);
}

TEST(Stats, ExactCdfMatchesCriticalValueTable) {
  // Two-sided 5 % critical value of U for n1 = n2 = 9 is 17 (standard tables).
  EXPECT_LE(MannWhitneyExactCdf(9, 9, 17), 0.025);
  EXPECT_GT(MannWhitneyExactCdf(9, 9, 18), 0.025);
  // n1 = n2 = 5: 2.
  EXPECT_LE(MannWhitneyExactCdf(5, 5, 2), 0.025);
  EXPECT_GT(MannWhitneyExactCdf(5, 5, 3), 0.025);
  EXPECT_NEAR(MannWhitneyExactCdf(3, 3, 0), 1.0 / 20, 1e-15);
}

TEST(Stats, IntervalOfAKnownRatio) {
  // Baseline exactly twice the variant: the pairwise log ratios are symmetric around
  // log 2, so the estimate is 2 and the interval is symmetric around it in log space.
  std::vector<double> v = {1.0, 1.1, 0.9, 1.3, 0.8, 1.05, 0.95, 1.2, 0.85}, b;
  for (double x : v) b.push_back(2 * x);
  const RatioCI r = RatioInterval(b, v, 0.95);
  EXPECT_DOUBLE_EQ(r.ratio, 2);
  EXPECT_NEAR(r.hodges_lehmann, 2, 1e-12);
  EXPECT_EQ(r.order_statistic, 18);  // 9 x 9 at 95 %: [D(18), D(64)]
  EXPECT_NEAR(r.low * r.high, 4, 1e-9);
  EXPECT_LT(r.low, 2);
  EXPECT_GT(r.high, 2);
  const RatioCI c = RatioInterval({4, 4, 4, 4}, {2, 2, 2, 2}, 0.95);
  EXPECT_DOUBLE_EQ(c.low, 2);
  EXPECT_DOUBLE_EQ(c.high, 2);
  EXPECT_THROW(RatioInterval({1, -1}, {1}, 0.95), std::invalid_argument);
}

TEST(Stats, IntervalCoversTheTrueRatioAboutNinetyFivePercent) {
  std::mt19937_64 rng(12345);
  std::lognormal_distribution<double> noise(0, 0.1);
  int covered = 0, rejected_null = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> b, v, w;
    for (int i = 0; i < 9; ++i) {
      b.push_back(1.5 * noise(rng));
      v.push_back(noise(rng));
      w.push_back(noise(rng));
    }
    const RatioCI r = RatioInterval(b, v, 0.95);
    covered += r.low <= 1.5 && 1.5 <= r.high;
    rejected_null += MannWhitneyU(w, v).p_value < 0.05;
  }
  EXPECT_GE(covered, trials * 0.91);
  EXPECT_LE(covered, trials * 0.995);
  EXPECT_LE(rejected_null, trials * 0.09);  // false alarms near alpha
  EXPECT_GE(rejected_null, trials * 0.015);
}

TEST(Stats, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x(120, 2.0), y(120, 1.0);
  for (int i = 0; i < 120; ++i) x[i] += i * 1e-3, y[i] += i * 1e-3;
  const RatioCI r = RatioInterval(x, y, 0.95);
  EXPECT_GT(r.low, 1.5);
  EXPECT_LT(r.high, 2.5);
}

// Why the per-repetition U test no longer decides anything but schema 1 files: on an
// A/A simulation with the structure of this machine (process-level effects, drift, heavy
// tails; stats/simulation.h), two runs of the same code, the old compare's U test of a
// benchmark's repetitions flags most of them, because it takes the repetitions of one
// session as independent samples of the machine. The speedup compare over processes with
// the decision rule keeps its false alarms at alpha plus Monte Carlo error.
TEST(Stats, PerRepetitionUTestFailsAnAaSimulationThatTheSpeedupComparePasses) {
  stats::Scenario sc;  // 4 processes x 15 rounds, process level sd 20 %, 5 % heavy tails
  const int n = 1000;
  int u_alarms = 0, decided = 0;
  for (int i = 0; i < n; ++i) {
    const stats::Experiment a = stats::Simulate(sc, 5000 + 2 * i);
    const stats::Experiment b = stats::Simulate(sc, 5001 + 2 * i);
    // The old compare: one benchmark's samples (the variant's times), old run vs new run.
    std::vector<double> old_ns, new_ns;
    for (const auto& p : a.variant) {
      for (double x : p) old_ns.push_back(std::exp(x));
    }
    for (const auto& p : b.variant) {
      for (double x : p) new_ns.push_back(std::exp(x));
    }
    u_alarms += MannWhitneyU(old_ns, new_ns).p_value < 0.05;
    // The new one: the speedups compared, the decision rule applied.
    stats::SpeedupOptions o;
    o.seed = static_cast<uint64_t>(i);
    std::vector<stats::Change> c = {stats::CompareSpeedups(stats::EstimateSpeedup(a.LogRatios(), o),
                                                           stats::EstimateSpeedup(b.LogRatios(), o))};
    stats::Decide(&c);
    decided += c[0].outcome == stats::ChangeOutcome::kFaster ||
               c[0].outcome == stats::ChangeOutcome::kSlower;
  }
  std::cout << "A/A, " << n << " pairs of runs: U test p < 0.05 in " << u_alarms
            << "; speedup compare decided faster/slower in " << decided << "\n";
  const double mc = 3 * std::sqrt(0.05 * 0.95 / n);  // 3 Monte Carlo standard errors: 2.1 %
  EXPECT_GT(static_cast<double>(u_alarms) / n, 0.05 + 5 * mc);  // far above alpha
  EXPECT_LE(static_cast<double>(decided) / n, 0.05 + mc);
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
