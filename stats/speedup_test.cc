#include "stats/speedup.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "stats/simulation.h"

namespace trickbench {
namespace stats {
namespace {

// The fraction of `n` seeded experiments of `sc` whose interval holds the truth.
double Coverage(Scenario sc, int n, uint64_t seed0, const SpeedupOptions& opt = {}) {
  int covered = 0;
  const double truth = std::exp(sc.true_log_speedup);
  for (int i = 0; i < n; ++i) {
    SpeedupOptions o = opt;
    o.seed = seed0 + i;
    const Speedup s = EstimateSpeedup(Simulate(sc, seed0 + i).LogRatios(), o);
    covered += s.low <= truth && truth <= s.high;
  }
  return static_cast<double>(covered) / n;
}

// Monte Carlo error of a proportion near 95 % with n experiments: ~0.7 % at n = 1000,
// so [93 %, 97 %] is about +-3 standard errors around a correct 95 %.
TEST(SpeedupCoverage, TIntervalFewProcesses) {
  Scenario sc;
  sc.processes = 4;
  sc.true_log_speedup = std::log(1.2);
  const double c = Coverage(sc, 2000, 1000);
  std::cout << "coverage " << c << "\n";
  EXPECT_GE(c, 0.93);
  EXPECT_LE(c, 0.97);
}

TEST(SpeedupCoverage, TIntervalProcessEffectsDominate) {
  Scenario sc;
  sc.processes = 3;
  sc.process_effect_sd = 0.08;
  const double c = Coverage(sc, 2000, 5000);
  std::cout << "coverage " << c << "\n";
  EXPECT_GE(c, 0.93);
  EXPECT_LE(c, 0.97);
}

TEST(SpeedupCoverage, CalibratedBootstrapManyProcesses) {
  Scenario sc;
  sc.processes = 12;
  sc.rounds = 10;
  sc.true_log_speedup = std::log(0.9);
  SpeedupOptions opt;
  opt.resamples = 2000;
  const double c = Coverage(sc, 1000, 9000, opt);
  std::cout << "coverage " << c << "\n";
  EXPECT_GE(c, 0.93);
  EXPECT_LE(c, 0.97);
}

TEST(SpeedupCoverage, CalibratedBootstrapRoundNoiseDominates) {
  Scenario sc;
  sc.processes = 10;
  sc.rounds = 8;
  sc.process_effect_sd = 0.002;
  sc.round_sd = 0.08;
  sc.tail_probability = 0.15;
  SpeedupOptions opt;
  opt.resamples = 2000;
  const double c = Coverage(sc, 1000, 20000, opt);
  std::cout << "coverage " << c << "\n";
  EXPECT_GE(c, 0.93);
  EXPECT_LE(c, 0.97);
}

// One process cannot see the between-process variance: its interval is too narrow when
// that variance exists. The method says so ("rounds"); this pins down that it does.
TEST(SpeedupCoverage, OneProcessUndercoversWhenProcessesDiffer) {
  Scenario sc;
  sc.processes = 1;
  sc.process_effect_sd = 0.08;
  SpeedupOptions opt;
  opt.resamples = 300;
  EXPECT_LT(Coverage(sc, 500, 30000, opt), 0.8);
  EXPECT_EQ(EstimateSpeedup(Simulate(sc, 1).LogRatios(), opt).method, "rounds");
}

// A/A: two runs of the same build. The compare's rate of "different" verdicts must
// stay at alpha, per benchmark.
TEST(CompareSpeedups, AaFalseAlarmsStayAtAlpha) {
  Scenario sc;
  sc.processes = 4;
  int alarms = 0, decided = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    SpeedupOptions o;
    o.seed = i;
    const Speedup a = EstimateSpeedup(Simulate(sc, 100000 + 2 * i).LogRatios(), o);
    const Speedup b = EstimateSpeedup(Simulate(sc, 100001 + 2 * i).LogRatios(), o);
    std::vector<Change> one = {CompareSpeedups(a, b)};
    alarms += one[0].p_value < 0.05;
    Decide(&one);
    decided += one[0].outcome == ChangeOutcome::kFaster || one[0].outcome == ChangeOutcome::kSlower;
  }
  std::cout << "A/A p < 0.05: " << alarms << " of " << n << "; decided faster/slower: " << decided
            << "\n";
  // alpha + 3 Monte Carlo standard errors (sqrt(.05 * .95 / 2000) = 0.49 %).
  EXPECT_LE(static_cast<double>(alarms) / n, 0.05 + 3 * 0.0049);
  EXPECT_LE(static_cast<double>(decided) / n, 0.05 + 3 * 0.0049);
}

TEST(CompareSpeedups, DetectsAPlantedTwentyPercentSlowdown) {
  Scenario sc;
  sc.processes = 4;
  Scenario slow = sc;
  slow.true_log_speedup = std::log(1 / 1.2);
  int detected = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<Change> c = {
        CompareSpeedups(EstimateSpeedup(Simulate(sc, 7 * i).LogRatios()),
                        EstimateSpeedup(Simulate(slow, 7 * i + 1).LogRatios()))};
    Decide(&c);
    detected += c[0].outcome == ChangeOutcome::kSlower;
  }
  EXPECT_GE(detected, 190);
}

TEST(Speedup, ReproducibleFromTheSeed) {
  Scenario sc;
  sc.processes = 12;
  const auto data = Simulate(sc, 3).LogRatios();
  SpeedupOptions o;
  o.seed = 11;
  const Speedup a = EstimateSpeedup(data, o), b = EstimateSpeedup(data, o);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_EQ(a.p_value, b.p_value);
  EXPECT_EQ(a.method, "bootstrap");
  EXPECT_EQ(a.p_method, "sign_flip");
}

TEST(Speedup, PointEstimateIsGeometricMeanOfProcessMedians) {
  const Speedup s = EstimateSpeedup(
      {{std::log(1.1), std::log(1.2), std::log(9.0)}, {std::log(1.3), std::log(1.3)}});
  EXPECT_NEAR(s.speedup, std::sqrt(1.2 * 1.3), 1e-12);
  EXPECT_EQ(s.processes, 2);
  EXPECT_EQ(s.rounds, 5);
  EXPECT_EQ(s.method, "t");
  EXPECT_EQ(s.p_method, "t");
}

TEST(Speedup, SignFlipExactWithSixProcesses) {
  const Speedup s = EstimateSpeedup({{0.1}, {0.2}, {0.15}, {0.12}, {0.3}, {0.11}});
  EXPECT_EQ(s.p_method, "sign_flip");
  EXPECT_NEAR(s.p_value, 2.0 / 64, 1e-12);
}

TEST(Speedup, ImpreciseWhenHalfWidthAboveTenPercent) {
  const Speedup wide = EstimateSpeedup({{0.0}, {0.3}, {-0.1}});
  EXPECT_TRUE(wide.imprecise);
  EXPECT_GT(wide.half_width, 0.10);
  const Speedup narrow = EstimateSpeedup({{0.100}, {0.101}, {0.099}});
  EXPECT_FALSE(narrow.imprecise);
}

TEST(Speedup, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(EstimateSpeedup({}), std::invalid_argument);
  EXPECT_THROW(EstimateSpeedup({{}, {}}), std::invalid_argument);
  EXPECT_THROW(EstimateSpeedup({{0.1, NAN}}), std::invalid_argument);
  SpeedupOptions bad;
  bad.confidence = 1;
  EXPECT_THROW(EstimateSpeedup({{0.1}}, bad), std::invalid_argument);
}

TEST(ToSettle, MoreProcessesWhenBetweenProcessVarianceDominates) {
  Scenario sc;
  sc.processes = 3;
  sc.process_effect_sd = 0.15;
  sc.round_sd = 0.005;
  sc.tail_probability = 0;
  const Speedup s = EstimateSpeedup(Simulate(sc, 5).LogRatios());
  ASSERT_TRUE(s.imprecise);
  const Settle settle = ToSettle(s, 0.10);
  EXPECT_TRUE(settle.reachable);
  EXPECT_GT(settle.processes, 3);
  EXPECT_EQ(settle.rounds_per_process, 15);  // more rounds would not help
}

// The paired t interval over A/B pairs: known values, coverage of a known truth under
// pair-level noise, and bad input refused.
TEST(ComparePaired, IntervalAndTestOverThePairs) {
  const Change c = ComparePaired({0.1, 0.2, 0.3});  // mean 0.2, sd 0.1, se 0.0577, t 4.303
  EXPECT_NEAR(c.ratio, std::exp(0.2), 1e-12);
  EXPECT_NEAR(std::log(c.low), 0.2 - 4.3027 * 0.1 / std::sqrt(3.0), 1e-3);
  EXPECT_NEAR(std::log(c.high), 0.2 + 4.3027 * 0.1 / std::sqrt(3.0), 1e-3);
  EXPECT_NEAR(c.p_value, 0.0742, 1e-3);  // t = 3.46 on 2 dof; the interval holds 1x
  EXPECT_LT(c.low, 1);
  EXPECT_LT(ComparePaired({0.19, 0.2, 0.21}).p_value, 0.01);
  EXPECT_GT(ComparePaired({0.1, -0.1, 0.05, -0.05}).p_value, 0.5);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.05);
  int covered = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    std::vector<double> pairs(5);
    for (double& x : pairs) x = std::log(1.1) + noise(rng);
    const Change k = ComparePaired(pairs);
    covered += k.low <= 1.1 && 1.1 <= k.high;
  }
  EXPECT_NEAR(static_cast<double>(covered) / n, 0.95, 0.015);
  EXPECT_THROW(ComparePaired({0.1}), std::invalid_argument);
  EXPECT_THROW(ComparePaired({0.1, std::nan("")}), std::invalid_argument);
}

TEST(Holm, AdjustsInStepDownOrder) {
  const std::vector<double> adj = HolmAdjust({0.01, 0.04, 0.03, 0.5});
  EXPECT_NEAR(adj[0], 0.04, 1e-12);
  EXPECT_NEAR(adj[2], 0.09, 1e-12);
  EXPECT_NEAR(adj[1], 0.09, 1e-12);  // monotone: max(0.08, 0.09)
  EXPECT_NEAR(adj[3], 0.5, 1e-12);
}

// A change of log ratio d with standard error se on 10 degrees of freedom.
Change Made(double ratio, double se, double p) {
  Change c;
  c.ratio = ratio;
  c.log_se = se;
  c.dof = 10;
  c.low = ratio * std::exp(-2.228 * se);  // the 95 % interval, as CompareSpeedups sets it
  c.high = ratio * std::exp(2.228 * se);
  c.p_value = p;
  return c;
}

TEST(Decide, ThreeOutcomes) {
  const Change faster = Made(1.2, 0.02, 1e-6);
  const Change tiny = Made(1.02, 0.005, 1e-6);  // significant but within the minimum effect
  const Change wide = Made(1.1, 0.15, 0.4);
  const Change slower = Made(0.8, 0.03, 1e-5);
  std::vector<Change> c = {faster, tiny, wide, slower};
  Decide(&c);
  EXPECT_EQ(c[0].outcome, ChangeOutcome::kFaster);
  EXPECT_EQ(c[1].outcome, ChangeOutcome::kUnchanged);
  EXPECT_EQ(c[2].outcome, ChangeOutcome::kUnknown);
  EXPECT_EQ(c[3].outcome, ChangeOutcome::kSlower);
  EXPECT_EQ(ChangeOutcomeName(c[2].outcome), "unknown");
}

// "unchanged" reads the 90 % interval (two one-sided tests at 0.05), not the 95 % one:
// a change of 1.01 with se 0.019 on 10 dof has the 95 % interval [0.968, 1.054], over
// the 5 % margin, and the 90 % one [0.976, 1.045], inside it.
TEST(Decide, UnchangedIsTwoOneSidedTestsAtAlpha) {
  std::vector<Change> c = {Made(1.01, 0.019, 0.6)};
  ASSERT_GT(c[0].high, 1.05);
  const auto [low, high] = EquivalenceInterval(c[0], 0.05);
  EXPECT_NEAR(low, 1.01 * std::exp(-1.812 * 0.019), 1e-3);  // t(0.95, 10) = 1.812
  EXPECT_NEAR(high, 1.01 * std::exp(1.812 * 0.019), 1e-3);
  Decide(&c);
  EXPECT_EQ(c[0].outcome, ChangeOutcome::kUnchanged);
  // A stricter alpha widens the equivalence interval past the margin.
  std::vector<Change> strict = {Made(1.01, 0.019, 0.6)};
  Decide(&strict, {/*alpha=*/0.01, /*min_effect=*/0.05});
  EXPECT_EQ(strict[0].outcome, ChangeOutcome::kUnknown);
}

// The equivalence test's error: two runs whose true speedups differ by exactly the
// margin (5 %) are called "unchanged" at most alpha of the time (the TOST's size; the
// 95 %-interval rule held it at alpha / 2 and decided fewer A/A pairs, both printed).
TEST(Decide, AChangeOfTheMarginIsCalledUnchangedAtMostAlpha) {
  Scenario sc;  // 4 processes a side, as a short run gives a setting
  Scenario moved = sc;
  moved.true_log_speedup = std::log(1.05);
  const int n = 2000;
  int wrongly_unchanged = 0, aa_unchanged = 0, aa_unchanged_95 = 0;
  for (int i = 0; i < n; ++i) {
    SpeedupOptions o;
    o.seed = i;
    const Speedup a = EstimateSpeedup(Simulate(sc, 500000 + 3 * i).LogRatios(), o);
    const Speedup b = EstimateSpeedup(Simulate(moved, 500001 + 3 * i).LogRatios(), o);
    const Speedup a2 = EstimateSpeedup(Simulate(sc, 500002 + 3 * i).LogRatios(), o);
    std::vector<Change> c = {CompareSpeedups(a, b), CompareSpeedups(a, a2)};
    aa_unchanged_95 += std::log(c[1].low) > -std::log(1.05) && std::log(c[1].high) < std::log(1.05);
    for (Change& one : c) {
      std::vector<Change> alone = {one};
      Decide(&alone);
      one = alone[0];
    }
    wrongly_unchanged += c[0].outcome == ChangeOutcome::kUnchanged;
    aa_unchanged += c[1].outcome == ChangeOutcome::kUnchanged;
  }
  std::cout << "true change 5 %: called unchanged " << wrongly_unchanged << " of " << n
            << "; A/A unchanged: " << aa_unchanged << " (95 % interval inside: " << aa_unchanged_95
            << ")\n";
  EXPECT_LE(static_cast<double>(wrongly_unchanged) / n, 0.05 + 3 * 0.0049);
  EXPECT_GT(aa_unchanged, aa_unchanged_95);
}

TEST(MinimumDetectableEffect, ShrinksWithTheStandardError) {
  Speedup s;
  s.dof = 3;
  s.log_se = 0.02;
  const double a = MinimumDetectableEffect(s);
  s.log_se = 0.01;
  EXPECT_LT(MinimumDetectableEffect(s), a);
  EXPECT_NEAR(a, std::expm1((3.1824 + 0.9785) * 0.02), 1e-3);
}

}  // namespace
}  // namespace stats
}  // namespace trickbench
