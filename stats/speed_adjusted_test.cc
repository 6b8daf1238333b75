#include "stats/speed_adjusted.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <stdexcept>

#include "stats/simulation.h"

namespace trickbench {
namespace stats {
namespace {

TEST(AtReferenceSpeed, FitsTheLineAndReadsItAtTheReference) {
  // Process values 0.1 + 0.5 * probe exactly, one round each but the first (three rounds
  // whose median is its value).
  std::vector<std::vector<double>> lr;
  std::vector<double> probe = {-0.2, -0.1, 0.0, 0.1, 0.2, 0.3};
  for (double x : probe) lr.push_back({0.1 + 0.5 * x});
  lr[0] = {0.0, 0.1 + 0.5 * -0.2, 1.0};
  const SpeedAdjusted a = AtReferenceSpeed(lr, probe, 0.4);
  ASSERT_TRUE(a.adjusted) << a.why_not;
  EXPECT_NEAR(a.slope, 0.5, 1e-12);
  EXPECT_NEAR(a.mean_speed, 0.05, 1e-12);
  EXPECT_NEAR(std::log(a.speedup.speedup), 0.3, 1e-12);
  EXPECT_NEAR(a.speedup.log_se, 0, 1e-12);  // a perfect line: nothing left over
  EXPECT_EQ(a.speedup.dof, 4);
  EXPECT_EQ(a.speedup.processes, 6);
  EXPECT_EQ(a.speedup.rounds, 8);
  EXPECT_EQ(a.speedup.method, "speed_adjusted");
  EXPECT_GT(a.speedup.within_sd, 0);
}

TEST(AtReferenceSpeed, ItsIntervalWidensAwayFromTheProcessesSpeeds) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<std::vector<double>> lr;
  std::vector<double> probe;
  for (int i = 0; i < 10; ++i) {
    probe.push_back(0.01 * i);
    lr.push_back({0.2 + probe.back() + noise(rng)});
  }
  const SpeedAdjusted at_mean = AtReferenceSpeed(lr, probe, 0.045);
  const SpeedAdjusted far = AtReferenceSpeed(lr, probe, 0.5);
  EXPECT_NEAR(at_mean.speedup.log_se, at_mean.speedup.between_sd / std::sqrt(10.0), 1e-12);
  EXPECT_GT(far.speedup.log_se, 3 * at_mean.speedup.log_se);
  EXPECT_LT(far.speedup.low, far.speedup.speedup);
  EXPECT_GT(far.speedup.high, far.speedup.speedup);
}

TEST(AtReferenceSpeed, NotAdjustedWithFewProcessesOrOneSpeed) {
  std::vector<std::vector<double>> lr(5, {0.1, 0.2});
  EXPECT_FALSE(AtReferenceSpeed(lr, {0, 1, 2, 3, 4}, 0).adjusted);
  EXPECT_NE(AtReferenceSpeed(lr, {0, 1, 2, 3, 4}, 0).why_not.find("5 processes"),
            std::string::npos);
  // A process with no round does not count.
  lr.push_back({});
  EXPECT_FALSE(AtReferenceSpeed(lr, {0, 1, 2, 3, 4, 5}, 0).adjusted);
  lr.push_back({0.3});
  EXPECT_TRUE(AtReferenceSpeed(lr, {0, 1, 2, 3, 4, 5, 6}, 0).adjusted);
  const SpeedAdjusted same = AtReferenceSpeed(lr, std::vector<double>(7, 11.5), 11.5);
  EXPECT_FALSE(same.adjusted);
  EXPECT_NE(same.why_not.find("do not differ"), std::string::npos);
}

TEST(AtReferenceSpeed, RejectsBadInput) {
  const std::vector<std::vector<double>> lr(6, {0.1});
  const std::vector<double> probe = {0, 1, 2, 3, 4, 5};
  EXPECT_THROW(AtReferenceSpeed(lr, {0, 1, 2}, 0), std::invalid_argument);
  EXPECT_THROW(AtReferenceSpeed(lr, {0, 1, 2, 3, 4, std::nan("")}, 0), std::invalid_argument);
  EXPECT_THROW(AtReferenceSpeed({{0.1}, {std::nan("")}, {0}, {0}, {0}, {0}}, probe, 0),
               std::invalid_argument);
  EXPECT_THROW(AtReferenceSpeed(lr, probe, INFINITY), std::invalid_argument);
  EXPECT_THROW(AtReferenceSpeed(lr, probe, 0, 1.0), std::invalid_argument);
}

// Runs on a machine with speed spells: each process runs at a speed x (log scale) around
// its session's mean, the probe reads x with a little error of its own, and the trick's
// log speedup moves by slope * x (a dispatch-bound baseline slows more than the variant).
struct Spells {
  int processes = 8;
  double slope = 1.0;            // log speedup per unit of log speed
  double speed_sd = 0.10;        // between processes of one session
  double session_speed_sd = 0;   // between sessions: which spells a run caught
  double probe_error_sd = 0.01;  // the probe's own error on a process's median
};

struct SimulatedRun {
  std::vector<std::vector<double>> log_ratios;
  std::vector<double> log_probe;
};

SimulatedRun SimulateRun(const Spells& sp, double true_log_speedup, uint64_t seed) {
  Scenario sc;
  sc.processes = sp.processes;
  sc.true_log_speedup = true_log_speedup;
  SimulatedRun r;
  r.log_ratios = Simulate(sc, seed).LogRatios();
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::normal_distribution<double> z(0, 1);
  const double session = sp.session_speed_sd * z(rng);
  for (auto& p : r.log_ratios) {
    const double x = session + sp.speed_sd * z(rng);
    for (double& v : p) v += sp.slope * x;
    r.log_probe.push_back(x + sp.probe_error_sd * z(rng));
  }
  return r;
}

double PooledMean(const SimulatedRun& a, const SimulatedRun& b) {
  double sum = 0;
  for (double x : a.log_probe) sum += x;
  for (double x : b.log_probe) sum += x;
  return sum / static_cast<double>(a.log_probe.size() + b.log_probe.size());
}

// The truth at the reference is the line's value there: with the probe reading the
// speed exactly, the 95 % interval covers it 93-97 % of the time.
TEST(AtReferenceSpeed, CoversTheSpeedupAtTheReference) {
  Spells sp;
  sp.probe_error_sd = 0;
  const double truth = std::log(1.2), reference = 0.05;
  const int n = 2000;
  int covered = 0;
  for (int i = 0; i < n; ++i) {
    const SimulatedRun r = SimulateRun(sp, truth, 500000 + i);
    const SpeedAdjusted a = AtReferenceSpeed(r.log_ratios, r.log_probe, reference);
    ASSERT_TRUE(a.adjusted);
    const double at_ref = std::exp(truth + sp.slope * reference);
    covered += a.speedup.low <= at_ref && at_ref <= a.speedup.high;
  }
  const double coverage = static_cast<double>(covered) / n;
  std::cout << "coverage at the reference: " << coverage << "\n";
  EXPECT_GE(coverage, 0.93);
  EXPECT_LE(coverage, 0.97);
}

struct AaOutcome {
  int false_alarms = 0, unchanged = 0;
};

// Two runs of one build, compared as compare does: Welch, alarms at p < alpha beyond
// nothing (the raw test, stricter than Decide's min effect), "unchanged" by TOST at +-5 %.
struct AaCounts {
  AaOutcome measured, adjusted;
};
AaCounts CompareAa(const Spells& sp, int pairs, uint64_t seed0) {
  AaCounts c;
  const double truth = std::log(1.15);
  for (int i = 0; i < pairs; ++i) {
    const SimulatedRun a = SimulateRun(sp, truth, seed0 + 2 * i);
    const SimulatedRun b = SimulateRun(sp, truth, seed0 + 2 * i + 1);
    const auto tally = [](const Speedup& old_s, const Speedup& new_s, AaOutcome* o) {
      std::vector<Change> ch = {CompareSpeedups(old_s, new_s)};
      o->false_alarms += ch[0].p_value < 0.05;
      Decide(&ch);
      o->unchanged += ch[0].outcome == ChangeOutcome::kUnchanged;
    };
    tally(EstimateSpeedup(a.log_ratios), EstimateSpeedup(b.log_ratios), &c.measured);
    const double ref = PooledMean(a, b);
    tally(AtReferenceSpeed(a.log_ratios, a.log_probe, ref).speedup,
          AtReferenceSpeed(b.log_ratios, b.log_probe, ref).speedup, &c.adjusted);
  }
  return c;
}

void Print(const char* what, const AaCounts& c, int n) {
  std::cout << what << " (of " << n << " A/A pairs): p < 0.05 measured " << c.measured.false_alarms
            << ", adjusted " << c.adjusted.false_alarms << "; unchanged measured "
            << c.measured.unchanged << ", adjusted " << c.adjusted.unchanged << "\n";
}

// alpha + 3 Monte Carlo standard errors at 2000 pairs (sqrt(.05 * .95 / 2000) = 0.49 %).
constexpr double kAlarmCeiling = 0.05 + 3 * 0.0049;

TEST(AtReferenceSpeed, WhereTheSpellsDriveTheSpreadItDecidesMoreAtAlpha) {
  const int n = 2000;
  const AaCounts c = CompareAa(Spells{}, n, 600000);
  Print("spells, slope 1", c, n);
  EXPECT_LE(static_cast<double>(c.adjusted.false_alarms) / n, kAlarmCeiling);
  EXPECT_LE(static_cast<double>(c.measured.false_alarms) / n, kAlarmCeiling);
  EXPECT_GT(c.adjusted.unchanged, 2 * c.measured.unchanged);
}

// The probe explains nothing (slope 0): the line costs a degree of freedom and a
// little width, and false alarms stay at alpha.
TEST(AtReferenceSpeed, WhereTheProbeExplainsNothingItCostsLittle) {
  Spells sp;
  sp.slope = 0;
  const int n = 2000;
  const AaCounts c = CompareAa(sp, n, 700000);
  Print("no slope", c, n);
  EXPECT_LE(static_cast<double>(c.adjusted.false_alarms) / n, kAlarmCeiling);
  EXPECT_GE(c.adjusted.unchanged, 0.8 * c.measured.unchanged);
}

// Two runs that caught different spells (the session's mean speed differs): as
// measured, the two runs differ by slope x the shift, a false alarm beyond alpha; read
// at one reference speed, the shift is gone but for the probe's own error.
TEST(AtReferenceSpeed, RunsThatCaughtDifferentSpellsCompareAtOneSpeed) {
  Spells sp;
  sp.session_speed_sd = 0.05;
  const int n = 2000;
  const AaCounts c = CompareAa(sp, n, 800000);
  Print("session shift 0.05", c, n);
  EXPECT_GT(static_cast<double>(c.measured.false_alarms) / n, 0.15);
  EXPECT_LE(static_cast<double>(c.adjusted.false_alarms) / n, kAlarmCeiling);
}

// A real change of exactly the min effect (5 %) between the runs: called "unchanged" at
// most alpha of the time, as TOST promises.
TEST(AtReferenceSpeed, AChangeAtTheMarginIsRarelyCalledUnchanged) {
  const Spells sp;
  const int n = 2000;
  int unchanged = 0;
  for (int i = 0; i < n; ++i) {
    const SimulatedRun a = SimulateRun(sp, std::log(1.15), 900000 + 2 * i);
    const SimulatedRun b = SimulateRun(sp, std::log(1.15) + std::log(1.05), 900001 + 2 * i);
    const double ref = PooledMean(a, b);
    std::vector<Change> ch = {
        CompareSpeedups(AtReferenceSpeed(a.log_ratios, a.log_probe, ref).speedup,
                        AtReferenceSpeed(b.log_ratios, b.log_probe, ref).speedup)};
    Decide(&ch);
    unchanged += ch[0].outcome == ChangeOutcome::kUnchanged;
  }
  std::cout << "a 5 % change called unchanged: " << unchanged << " of " << n << "\n";
  EXPECT_LE(static_cast<double>(unchanged) / n, kAlarmCeiling);
}

}  // namespace
}  // namespace stats
}  // namespace trickbench
