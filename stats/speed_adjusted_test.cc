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

TEST(AtOldRunsSpeed, FitsOneSlopeAndReadsTheNewRunAtTheOldRunsSpeed) {
  // Process values 0.1 + 0.5 * probe (old) and 0.3 + 0.5 * probe (new) exactly, one round
  // each but the first (three rounds whose median is its value); the new run ran slower.
  std::vector<std::vector<double>> old_lr, new_lr;
  const std::vector<double> old_probe = {-0.2, -0.1, 0.0, 0.1}, new_probe = {0.3, 0.4, 0.5, 0.6};
  for (double x : old_probe) old_lr.push_back({0.1 + 0.5 * x});
  for (double x : new_probe) new_lr.push_back({0.3 + 0.5 * x});
  old_lr[0] = {0.0, 0.1 + 0.5 * -0.2, 1.0};
  const OneSpeed s = AtOldRunsSpeed(old_lr, old_probe, new_lr, new_probe);
  ASSERT_TRUE(s.adjusted) << s.why_not;
  EXPECT_NEAR(s.slope, 0.5, 1e-12);
  EXPECT_NEAR(s.reference, -0.05, 1e-12);
  EXPECT_NEAR(std::log(s.old_side.speedup), 0.1 + 0.5 * -0.05, 1e-12);
  EXPECT_NEAR(std::log(s.new_side.speedup), 0.3 + 0.5 * -0.05, 1e-12);  // at the old speed
  EXPECT_NEAR(s.old_side.log_se + s.new_side.log_se, 0, 1e-12);         // a perfect line
  EXPECT_EQ(s.dof, 5);
  EXPECT_EQ(s.old_side.processes, 4);
  EXPECT_EQ(s.old_side.rounds, 6);
  EXPECT_EQ(s.new_side.rounds, 4);
  EXPECT_EQ(s.new_side.method, "speed_adjusted");
  EXPECT_GT(s.old_side.within_sd, 0);
}

// The sides' variances add up to the change's, and Welch's dof over them is the fit's.
TEST(AtOldRunsSpeed, CompareSpeedupsGetsTheFitsChange) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<std::vector<double>> old_lr, new_lr;
  std::vector<double> old_probe, new_probe;
  for (int i = 0; i < 6; ++i) {
    old_probe.push_back(0.01 * i);
    old_lr.push_back({0.2 + old_probe.back() + noise(rng), 0.2 + old_probe.back()});
    new_probe.push_back(0.1 + 0.02 * i);
    new_lr.push_back({0.2 + new_probe.back() + noise(rng)});
  }
  const OneSpeed s = AtOldRunsSpeed(old_lr, old_probe, new_lr, new_probe);
  ASSERT_TRUE(s.adjusted);
  const Change c = CompareSpeedups(s.old_side, s.new_side);
  EXPECT_NEAR(c.dof, 9, 1e-9);
  EXPECT_GE(s.old_side.dof, 4.5);
  EXPECT_LE(s.old_side.dof, 9);
  // The slope term falls on the new side: its mean speed is 0.125 from the old one's.
  EXPECT_GT(s.new_side.log_se, s.old_side.log_se);
  EXPECT_NEAR(std::log(c.ratio), 0, 0.06);
}

TEST(AtOldRunsSpeed, NotAdjustedWithFewProcessesOrOneSpeed) {
  const std::vector<std::vector<double>> four(4, {0.1, 0.2}), two(2, {0.1});
  const std::vector<double> p4 = {0, 1, 2, 3};
  EXPECT_TRUE(AtOldRunsSpeed(four, p4, four, p4).adjusted);
  std::vector<std::vector<double>> three_and_empty = {{0.1}, {0.2}, {0.3}, {}};
  const OneSpeed seven = AtOldRunsSpeed(four, p4, three_and_empty, p4);  // an empty one
  EXPECT_FALSE(seven.adjusted);                                          // does not count
  EXPECT_NE(
      seven.why_not.find("4 + 3 processes, where the fit needs 8 over both runs and 3 in each"),
      std::string::npos);
  const std::vector<std::vector<double>> six(6, {0.1});
  EXPECT_FALSE(AtOldRunsSpeed(six, {0, 1, 2, 3, 4, 5}, two, {0, 1}).adjusted);  // 2 in a run
  const OneSpeed same =
      AtOldRunsSpeed(four, std::vector<double>(4, 11.5), four, std::vector<double>(4, 11.9));
  EXPECT_FALSE(same.adjusted);  // the runs differ in speed, but no run's processes do
  EXPECT_NE(same.why_not.find("do not differ"), std::string::npos);
}

TEST(AtOldRunsSpeed, RejectsBadInput) {
  const std::vector<std::vector<double>> lr(4, {0.1});
  const std::vector<double> probe = {0, 1, 2, 3};
  const auto message = [&](auto f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] {
              AtOldRunsSpeed(lr, {0, 1, 2}, lr, probe);
            }),
            "AtOldRunsSpeed: the old run: 4 processes of log ratios but 3 probe values");
  EXPECT_EQ(message([&] {
              AtOldRunsSpeed(lr, probe, lr, {0, 1, 2, std::nan("")});
            }),
            "AtOldRunsSpeed: the new run: a probe value is not finite");
  EXPECT_EQ(message([&] {
              AtOldRunsSpeed(lr, probe, {{0.1}, {std::nan("")}, {0}, {0}}, probe);
            }),
            "AtOldRunsSpeed: the new run: a log ratio is not finite");
  EXPECT_EQ(message([&] { AtOldRunsSpeed(lr, probe, lr, probe, 1.0); }),
            "AtOldRunsSpeed: confidence must be in (0, 1)");
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

// The change between two runs of one build is 0 whatever spells they caught: with the
// probe reading the speed exactly, the 95 % interval of the change covers it 93-97 % of
// the time, though the runs' mean speeds differ (a session shift of sd 0.05).
TEST(AtOldRunsSpeed, CoversTheChangeBetweenRunsThatCaughtDifferentSpells) {
  Spells sp;
  sp.probe_error_sd = 0;
  sp.session_speed_sd = 0.05;
  const double truth = std::log(1.2);
  const int n = 2000;
  int covered = 0;
  for (int i = 0; i < n; ++i) {
    const SimulatedRun a = SimulateRun(sp, truth, 500000 + 2 * i);
    const SimulatedRun b = SimulateRun(sp, truth, 500001 + 2 * i);
    const OneSpeed s = AtOldRunsSpeed(a.log_ratios, a.log_probe, b.log_ratios, b.log_probe);
    ASSERT_TRUE(s.adjusted);
    const Change c = CompareSpeedups(s.old_side, s.new_side);
    covered += c.low <= 1 && 1 <= c.high;
  }
  const double coverage = static_cast<double>(covered) / n;
  std::cout << "coverage of the change: " << coverage << "\n";
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
    const OneSpeed s = AtOldRunsSpeed(a.log_ratios, a.log_probe, b.log_ratios, b.log_probe);
    tally(s.old_side, s.new_side, &c.adjusted);
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

TEST(AtOldRunsSpeed, WhereTheSpellsDriveTheSpreadItDecidesMoreAtAlpha) {
  const int n = 2000;
  const AaCounts c = CompareAa(Spells{}, n, 600000);
  Print("spells, slope 1", c, n);
  EXPECT_LE(static_cast<double>(c.adjusted.false_alarms) / n, kAlarmCeiling);
  EXPECT_LE(static_cast<double>(c.measured.false_alarms) / n, kAlarmCeiling);
  EXPECT_GT(c.adjusted.unchanged, 2 * c.measured.unchanged);
}

// The probe explains nothing (slope 0): the line costs a degree of freedom and a
// little width, and false alarms stay at alpha.
TEST(AtOldRunsSpeed, WhereTheProbeExplainsNothingItCostsLittle) {
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
// at the old run's speed, the shift is gone but for the probe's own error.
TEST(AtOldRunsSpeed, RunsThatCaughtDifferentSpellsCompareAtOneSpeed) {
  Spells sp;
  sp.session_speed_sd = 0.05;
  const int n = 2000;
  const AaCounts c = CompareAa(sp, n, 800000);
  Print("session shift 0.05", c, n);
  EXPECT_GT(static_cast<double>(c.measured.false_alarms) / n, 0.15);
  EXPECT_LE(static_cast<double>(c.adjusted.false_alarms) / n, kAlarmCeiling);
}

// Four processes a run, as a default run's first pass gives many settings: the fit has
// 5 degrees of freedom, and false alarms stay at alpha with the session shift removed.
TEST(AtOldRunsSpeed, FourProcessesARunAreEnough) {
  Spells sp;
  sp.processes = 4;
  sp.session_speed_sd = 0.05;
  const int n = 2000;
  const AaCounts c = CompareAa(sp, n, 850000);
  Print("4 processes a run, session shift 0.05", c, n);
  EXPECT_LE(static_cast<double>(c.adjusted.false_alarms) / n, kAlarmCeiling);
  EXPECT_GT(c.adjusted.unchanged, c.measured.unchanged);
}

// A real change of exactly the min effect (5 %) between the runs: called "unchanged" at
// most alpha of the time, as TOST promises.
TEST(AtOldRunsSpeed, AChangeAtTheMarginIsRarelyCalledUnchanged) {
  const Spells sp;
  const int n = 2000;
  int unchanged = 0;
  for (int i = 0; i < n; ++i) {
    const SimulatedRun a = SimulateRun(sp, std::log(1.15), 900000 + 2 * i);
    const SimulatedRun b = SimulateRun(sp, std::log(1.15) + std::log(1.05), 900001 + 2 * i);
    const OneSpeed s = AtOldRunsSpeed(a.log_ratios, a.log_probe, b.log_ratios, b.log_probe);
    std::vector<Change> ch = {CompareSpeedups(s.old_side, s.new_side)};
    Decide(&ch);
    unchanged += ch[0].outcome == ChangeOutcome::kUnchanged;
  }
  std::cout << "a 5 % change called unchanged: " << unchanged << " of " << n << "\n";
  EXPECT_LE(static_cast<double>(unchanged) / n, kAlarmCeiling);
}

}  // namespace
}  // namespace stats
}  // namespace trickbench
