// compare: the speedup changes' three outcomes with Holm's correction, the CI option on
// the corrected rule, absolute times tested only within one A/B session, tricks on one
// side listed, environment and machine-state differences warned about. A noise study's
// session parts (--noise): compare_noise_test.cc.
#include "reports/compare.h"
#include "reports/compare_render.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "reports/cli.h"
#include "reports/compare_fixture.h"
#include "reports/load.h"
#include "reports/analyze.h"
#include "reports/html_printer.h"
#include "reports/markdown_printer.h"
#include "reports/rounds_fixture.h"
#include "reports/session_parts.h"
#include "reports/test_util.h"
#include "stats/simulation.h"

namespace trickbench {
namespace reports {
namespace {

using json = nlohmann::ordered_json;
using testing::Fixture;
using testing::HandMade;
using testing::ReportOf;
using testing::ScratchDir;
using testing::SimulatedTrick;
using testing::Slurp;
using testing::Spit;
using testing::WriteSimulatedRun;

// The fixtures (one process, 9 rounds each): alpha_fast's optimized variant is 30 % slower in run_regressed, so
// its speedup fell from 2.0x to 1.5x.
TEST(Compare, PlantedRegressionFailsTheCiOption) {
  const std::string old_r = ReportOf("run", "cmp_old"),
                    new_r = ReportOf("run_regressed", "cmp_new");
  std::ostringstream out, err;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=10"}, out, err), 1);
  EXPECT_NE(out.str().find("CI check FAILED: 1 regression(s) beyond 10.0%"), std::string::npos)
      << out.str();
  EXPECT_NE(err.str().find("1 regression(s) beyond 10%"), std::string::npos) << err.str();
  // The same regression, under a threshold above it, passes.
  std::ostringstream out2, err2;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=50"}, out2, err2), 0);
  // Per-trick result files work the same way.
  std::ostringstream out3, err3;
  EXPECT_EQ(CompareMain({Fixture("run/alpha_fast.json"), Fixture("run_regressed/alpha_fast.json"),
                         "--fail_on_regression=10"},
                        out3, err3),
            1);
}

TEST(Compare, UnchangedCodePassesAndShowsTimesUntested) {
  const ReportDiff c = CompareReports(LoadReportOrResult(ReportOf("run", "u_old")),
                                      LoadReportOrResult(ReportOf("run_again", "u_new")));
  EXPECT_EQ(Regressions(c, 0), 0);
  EXPECT_EQ(c.speedups.size(), 7u);
  for (const auto& s : c.speedups) {
    EXPECT_NE(s.change.outcome, stats::ChangeOutcome::kSlower) << s.trick;
    EXPECT_NE(s.change.outcome, stats::ChangeOutcome::kFaster) << s.trick;
  }
  ASSERT_TRUE(c.geomean_ratio.has_value());
  EXPECT_NEAR(*c.geomean_ratio, 1, 0.1);
  EXPECT_GE(c.times.size(), 10u);
  for (const auto& t : c.times) EXPECT_FALSE(t.change.has_value()) << t.trick;  // two sessions
  EXPECT_FALSE(c.same_session);
  EXPECT_NE(c.times_note.find("run_all --ab"), std::string::npos);
  EXPECT_EQ(c.not_compared.size(), 3u);  // skipped, invalid, crashed on both sides
  EXPECT_TRUE(c.environment.empty());
  EXPECT_TRUE(c.machine.empty());
  const std::string md = doc::PrintMarkdown(DiffDocument(c, 10.0));
  EXPECT_NE(md.find("Shown, not tested: "), std::string::npos);
  EXPECT_NE(md.find("CI check: no regression beyond 10.0%"), std::string::npos);
}

stats::Scenario Scenario(int processes, double speedup, double round_sd) {
  stats::Scenario sc;
  sc.processes = processes;
  sc.rounds = 15;
  sc.true_log_speedup = std::log(speedup);
  sc.process_effect_sd = 0.005;
  sc.round_sd = round_sd;
  sc.tail_probability = 0;
  return sc;
}

// One run per side, four tricks: one whose speedup falls (slower), one that gains
// (faster), one the same and precise (unchanged), one too noisy to say (unknown, with
// the processes and rounds that would settle it).
TEST(Compare, ThreeOutcomesOnSimulatedRuns) {
  const auto run = [](const std::string& name, double fall, double gain, uint64_t seed) {
    return ReportOf(
        WriteSimulatedRun(ScratchDir(name + "_run"),
                          {{"falls", stats::Simulate(Scenario(4, fall, 0.01), seed)},
                           {"gains", stats::Simulate(Scenario(4, gain, 0.01), seed + 1)},
                           {"same", stats::Simulate(Scenario(4, 1.2, 0.01), seed + 2)},
                           {"noisy", stats::Simulate(Scenario(2, 1.2, 0.3), seed + 3)}}),
        name);
  };
  const std::string old_r = run("three_old", 1.5, 1.0, 100),
                    new_r = run("three_new", 1.2, 1.3, 200);
  const ReportDiff c = CompareReports(LoadReportOrResult(old_r), LoadReportOrResult(new_r));
  ASSERT_EQ(c.speedups.size(), 4u);
  std::map<std::string, const SpeedupChange*> by;
  for (const auto& s : c.speedups) by[s.trick] = &s;
  EXPECT_EQ(by["falls"]->change.outcome, stats::ChangeOutcome::kSlower);
  EXPECT_NEAR(by["falls"]->change.ratio, 1.2 / 1.5, 0.03);
  EXPECT_EQ(by["gains"]->change.outcome, stats::ChangeOutcome::kFaster);
  EXPECT_EQ(by["same"]->change.outcome, stats::ChangeOutcome::kUnchanged);
  EXPECT_EQ(by["noisy"]->change.outcome, stats::ChangeOutcome::kUnknown);
  ASSERT_TRUE(by["noisy"]->processes_to_settle.has_value());
  EXPECT_GT(*by["noisy"]->processes_to_settle, 2);
  // The advice as time: both sides, each at its run's pace (30 s per simulated process).
  ASSERT_TRUE(by["noisy"]->seconds_to_settle.has_value());
  EXPECT_GT(*by["noisy"]->seconds_to_settle, 2 * *by["noisy"]->processes_to_settle * 29.0);
  for (const auto& s : c.speedups) EXPECT_GE(s.change.p_adjusted, s.change.p_value);
  // The noisy setting can only detect far larger changes than the quiet ones.
  EXPECT_GT(by["noisy"]->minimum_detectable_effect, 5 * by["same"]->minimum_detectable_effect);
  EXPECT_GT(by["same"]->minimum_detectable_effect, 0);
  // --fail_on_regression counts the slower outcome when its effect (1.5 / 1.2 - 1 = 25 %)
  // exceeds PCT.
  std::ostringstream out, err;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=10"}, out, err), 1);
  EXPECT_NE(out.str().find("processes x "), std::string::npos) << out.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=30"}, out2, err2), 0);
  // --min_effect above the change: neither slower nor faster any more.
  std::ostringstream out3, err3;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=10", "--min_effect=30"}, out3, err3),
            0);
  // The rule as given: the default's 90 % equivalence interval, and an alpha of 0.025
  // neither rounded nor mistaken for its 95 % interval.
  EXPECT_NE(out.str().find("unchanged = the 90% interval inside ±5.0% (two one-sided tests at "
                           "0.05)"),
            std::string::npos)
      << out.str();
  std::ostringstream out5, err5;
  CompareMain({old_r, new_r, "--alpha=0.025"}, out5, err5);
  EXPECT_NE(out5.str().find("p < 0.025 and beyond ±5.0%; unchanged = the 95% interval"),
            std::string::npos)
      << out5.str();
  std::ostringstream out4, err4;
  EXPECT_EQ(CompareMain({old_r, new_r, "--alpha=1.5"}, out4, err4), 2);
  EXPECT_EQ(err4.str(),
            "compare: bad value for --alpha: '1.5' (expected a level in (0, 1), e.g. 0.05)\n");
}

// A run on a machine with speed spells: process p ran at log speed x_p (the probe read
// 100 us * exp(x_p)) and the optimized variant gained `slope` * x_p on its baseline, as a
// dispatch-bound baseline slows more than its variant in a slow spell.
std::string SpelledRun(const std::string& name, int processes, double session_speed, uint64_t seed,
                       bool probe = true) {
  stats::Experiment e = stats::Simulate(Scenario(processes, 1.5, 0.01), seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> speed(session_speed, 0.1);
  std::vector<double> probes;
  for (auto& process : e.variant) {
    const double x = speed(rng);
    for (double& log_ns : process) log_ns -= 1.0 * x;
    probes.push_back(probe ? 100e3 * std::exp(x) : 0);
  }
  SimulatedTrick t{"spelled", e};
  t.probe_ns_by_process = probes;
  return ReportOf(WriteSimulatedRun(ScratchDir(name + "_run"), {t}), name);
}

// Two runs of one build that caught different spells (the second 8 % slower on the
// probe): as measured the speedup moved by about 8 %, beyond +-5 %; read at one machine
// speed both are the same speedup, and compare calls it unchanged. With too few
// processes or a side without the probe, both are compared as measured and it says why.
TEST(Compare, ReadsBothRunsAtOneMachineSpeed) {
  const std::string old_r = SpelledRun("spell_old", 12, 0.0, 31),
                    new_r = SpelledRun("spell_new", 12, 0.08, 32);
  const ReportDiff c = CompareReports(LoadReportOrResult(old_r), LoadReportOrResult(new_r));
  ASSERT_EQ(c.speedups.size(), 1u);
  const SpeedupChange& s = c.speedups[0];
  ASSERT_TRUE(s.reference_probe_ns.has_value()) << s.as_measured_because;
  // The old run's mean speed: its 12 processes' log speeds drawn around 0, sd 0.1.
  EXPECT_NEAR(std::log(*s.reference_probe_ns / 100e3), 0, 0.1);
  EXPECT_EQ(s.old_side.method, "speed_adjusted");
  EXPECT_EQ(s.change.outcome, stats::ChangeOutcome::kUnchanged);
  EXPECT_LT(s.change.log_se, 0.5 * std::hypot(s.old_time.log_se, s.new_time.log_se));
  // What each report says stays as measured: the new run's speedup is higher.
  EXPECT_GT(s.new_time.speedup / s.old_time.speedup, 1.04);
  const std::string md = doc::PrintMarkdown(DiffDocument(c, std::nullopt));
  EXPECT_NE(md.find("1 of 1 settings were read at one machine speed"), std::string::npos) << md;
  EXPECT_NE(md.find("| read at |"), std::string::npos) << md;
  EXPECT_NE(md.find("| probe 10"), std::string::npos) << md;
  EXPECT_EQ(md.find("As measured:"), std::string::npos) << md;

  // The same runs as measured (the probe stripped from the new report) cannot say so.
  const std::string no_probe = SpelledRun("spell_new_noprobe", 12, 0.08, 32, false);
  const ReportDiff m = CompareReports(LoadReportOrResult(old_r), LoadReportOrResult(no_probe));
  EXPECT_FALSE(m.speedups[0].reference_probe_ns.has_value());
  EXPECT_NE(m.speedups[0].as_measured_because.find("written before probe_ns"), std::string::npos)
      << m.speedups[0].as_measured_because;
  EXPECT_NE(m.speedups[0].change.outcome, stats::ChangeOutcome::kUnchanged);
  EXPECT_EQ(m.speedups[0].old_side.method, m.speedups[0].old_time.method);
  const std::string m_md = doc::PrintMarkdown(DiffDocument(m, std::nullopt));
  EXPECT_NE(m_md.find("| as measured |"), std::string::npos);
  EXPECT_NE(m_md.find("0 of 1 settings were read at one machine speed"), std::string::npos);
  EXPECT_NE(m_md.find("As measured: 1 because a process of the new run has no speed probe "
                      "(written before probe_ns) (spelled "),
            std::string::npos)
      << m_md;

  const std::string few = SpelledRun("spell_few", 2, 0.08, 33);
  const ReportDiff f = CompareReports(LoadReportOrResult(old_r), LoadReportOrResult(few));
  EXPECT_FALSE(f.speedups[0].reference_probe_ns.has_value());
  EXPECT_EQ(f.speedups[0].as_measured_because,
            "12 + 2 processes, where the fit needs 8 over both runs and 3 in each");
}

// HandMade's setting with its baseline's and variant's iterations per sample, per process.
Report WithCounts(Report r, const std::vector<int64_t>& baseline,
                  const std::vector<int64_t>& optimized) {
  for (TrickReport& t : r.tricks) {
    Variant b, o;
    b.name = "baseline";
    b.baseline = true;
    b.process_iterations = baseline;
    o.name = "optimized";
    o.process_iterations = optimized;
    t.variants = {b, o};
  }
  return r;
}

// The variant timed with 1 iteration per sample in the old run and 2 in the new gains
// 42 % on its baseline: the count, not the code, may be what changed, so the outcome is
// unknown and compare says how to rerun it like for like; a change inside the margin is
// unchanged all the same. The same counts, or a run whose processes drew several counts
// (its interval holds them), are tested as usual.
TEST(Compare, SettingsTimedWithOtherIterationCountsAreUnknown) {
  const Report old_r = HandMade({0.0}, 0.01), new_r = HandMade({0.35}, 0.01);
  const ReportDiff unlike = CompareReports(WithCounts(old_r, {2, 2, 2}, {1, 1, 1}),
                                           WithCounts(new_r, {2, 2, 2}, {2, 2, 2}));
  ASSERT_EQ(unlike.speedups.size(), 1u);
  EXPECT_EQ(unlike.speedups[0].unlike_iterations,
            "baseline 2 -> 2, optimized 1 -> 2 iterations per sample");
  EXPECT_EQ(unlike.speedups[0].change.outcome, stats::ChangeOutcome::kUnknown);
  EXPECT_FALSE(unlike.speedups[0].processes_to_settle.has_value());
  const std::string md = doc::PrintMarkdown(DiffDocument(unlike, std::nullopt));
  EXPECT_NE(md.find("1 setting(s) were timed with other iterations per sample in the two runs"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("--iterations_from=<the old run's folder> (t0 optimized)"), std::string::npos)
      << md;
  EXPECT_NE(md.find("unknown: timed with other iterations per sample (baseline 2 -> 2, "
                    "optimized 1 -> 2 iterations per sample)"),
            std::string::npos)
      << md;

  // The two sides of one A/B session: the side that ran second already timed the other's
  // counts where it could, so the advice is not the --iterations_from rerun.
  Report ab_old = WithCounts(old_r, {2, 2, 2}, {1, 1, 1}),
         ab_new = WithCounts(new_r, {2, 2, 2}, {2, 2, 2});
  ab_old.ab = results::AbSession{7, results::kAbOld, "/old", "/new", {"old", "new"}};
  ab_new.ab = results::AbSession{7, results::kAbNew, "/old", "/new", {"old", "new"}};
  const ReportDiff session = CompareReports(ab_old, ab_new);
  ASSERT_TRUE(session.same_session) << session.times_note;
  EXPECT_EQ(session.speedups[0].change.outcome, stats::ChangeOutcome::kUnknown);
  const std::string ab_md = doc::PrintMarkdown(DiffDocument(session, std::nullopt));
  EXPECT_NE(ab_md.find("variants or cases differ between the builds"), std::string::npos) << ab_md;
  EXPECT_EQ(ab_md.find("--iterations_from"), std::string::npos) << ab_md;

  // A change inside the margin, whatever the counts did, is unchanged all the same.
  const ReportDiff same = CompareReports(WithCounts(old_r, {2, 2, 2}, {1, 1, 1}),
                                         WithCounts(HandMade({0.005}, 0.01), {2, 2, 2}, {2, 2, 2}));
  EXPECT_EQ(same.speedups[0].change.outcome, stats::ChangeOutcome::kUnchanged);
  EXPECT_NE(doc::PrintMarkdown(DiffDocument(same, std::nullopt))
                .find("unchanged, though timed with other iterations per sample (baseline 2 -> 2"),
            std::string::npos);

  for (const auto& [old_counts, new_counts] :
       std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{2, 2, 2}, {2, 2, 2}}, {{1, 2, 1}, {2, 2, 2}}, {{}, {2, 2, 2}}}) {
    const ReportDiff alike = CompareReports(WithCounts(old_r, {2, 2, 2}, old_counts),
                                            WithCounts(new_r, {2, 2, 2}, new_counts));
    EXPECT_EQ(alike.speedups[0].unlike_iterations, "");
    EXPECT_EQ(alike.speedups[0].change.outcome, stats::ChangeOutcome::kFaster);
    EXPECT_EQ(doc::PrintMarkdown(DiffDocument(alike, std::nullopt)).find("other iterations"),
              std::string::npos);
  }
}

// A 10 % fall with p about 0.01 alone is "slower"; among 20 settings, Holm's correction
// makes it unknown, and --fail_on_regression does not count it.
TEST(Compare, HolmCorrectsOverAllSettingsAndTheCiCheckUsesIt) {
  const double se = 0.03;  // log(1/1.1) / (se * sqrt 2) = -2.25: p ~ 0.04 on ~18 dof
  const ReportDiff alone = CompareReports(HandMade({std::log(1.1)}, se), HandMade({0}, se));
  ASSERT_EQ(alone.speedups.size(), 1u);
  EXPECT_LT(alone.speedups[0].change.p_value, 0.05);
  EXPECT_EQ(alone.speedups[0].change.outcome, stats::ChangeOutcome::kSlower);
  EXPECT_EQ(Regressions(alone, 5), 1);
  std::vector<double> many(20, 0.0), many_new(20, 0.0);
  many[0] = std::log(1.1);
  const ReportDiff crowd = CompareReports(HandMade(many, se), HandMade(many_new, se));
  ASSERT_EQ(crowd.speedups.size(), 20u);
  EXPECT_NEAR(crowd.speedups[0].change.p_value, alone.speedups[0].change.p_value, 1e-12);
  EXPECT_NEAR(crowd.speedups[0].change.p_adjusted,
              std::min(1.0, 20 * crowd.speedups[0].change.p_value), 1e-12);
  EXPECT_EQ(crowd.speedups[0].change.outcome, stats::ChangeOutcome::kUnknown);
  EXPECT_EQ(Regressions(crowd, 5), 0);
}

// Absolute times: the same A/B session (seed, roles old and new) pairs process k of
// each build; the new build's optimized variant is 20 % slower in every pair.
TEST(Compare, AbSessionTestsAbsoluteTimesOverThePairs) {
  stats::Experiment e = stats::Simulate(Scenario(4, 1.3, 0.01), 300);
  stats::Experiment slower = e;
  for (auto& p : slower.variant) {
    for (double& x : p) x += std::log(1.2);
  }
  results::AbSession ab{99, results::kAbOld, "/old", "/new", {"old", "new", "new", "old"}};
  const std::string old_r =
      ReportOf(WriteSimulatedRun(ScratchDir("ab_old"), {{"alpha", e}}, ab), "ab_old_r");
  ab.role = results::kAbNew;
  const std::string new_r =
      ReportOf(WriteSimulatedRun(ScratchDir("ab_new"), {{"alpha", slower}}, ab), "ab_new_r");
  const ReportDiff c = CompareReports(LoadReportOrResult(old_r), LoadReportOrResult(new_r));
  EXPECT_TRUE(c.same_session) << c.times_note;
  ASSERT_EQ(c.times.size(), 2u);
  for (const auto& t : c.times) {
    ASSERT_TRUE(t.change.has_value());
    EXPECT_EQ(t.pairs, 4);
    if (t.baseline) {
      EXPECT_EQ(t.change->outcome, stats::ChangeOutcome::kUnchanged);
    } else {
      EXPECT_EQ(t.change->outcome, stats::ChangeOutcome::kSlower);
      EXPECT_NEAR(t.change->ratio, 1 / 1.2, 1e-6);
    }
  }
  // The speedup fell too (1.3x -> 1.08x): two regressions beyond 10 %.
  EXPECT_EQ(Regressions(c, 10), 2);
  const std::string md = doc::PrintMarkdown(DiffDocument(c, std::nullopt));
  EXPECT_NE(md.find("One A/B session: per timed variant"), std::string::npos) << md;
  EXPECT_EQ(testing::WellFormedError(doc::PrintHtml(DiffDocument(c, 10.0))), "");
  EXPECT_EQ(c.one_process, 0);
  EXPECT_EQ(md.find("measured in one process"), std::string::npos);
  // Reversed, or from two sessions: shown, not tested, saying why.
  const ReportDiff reversed = CompareReports(LoadReportOrResult(new_r), LoadReportOrResult(old_r));
  EXPECT_FALSE(reversed.same_session);
  EXPECT_NE(reversed.times_note.find("roles are new and old"), std::string::npos)
      << reversed.times_note;
  for (const auto& t : reversed.times) EXPECT_FALSE(t.change.has_value());
}

TEST(Compare, SaysWhenASettingHadOneProcess) {
  const stats::Experiment e = stats::Simulate(Scenario(1, 1.2, 0.01), 500);
  const std::string r = ReportOf(WriteSimulatedRun(ScratchDir("one_p"), {{"alpha", e}}), "one_p_r");
  const ReportDiff c = CompareReports(LoadReportOrResult(r), LoadReportOrResult(r));
  EXPECT_EQ(c.one_process, 1);
  EXPECT_NE(doc::PrintMarkdown(DiffDocument(c, std::nullopt))
                .find("1 setting(s) were measured in one process"),
            std::string::npos);
}

TEST(Compare, NamesMachineStateDifferences) {
  const stats::Experiment e = stats::Simulate(Scenario(2, 1.2, 0.01), 400);
  // 60 s of trick processes on 2 cores: steal 3 s is 2.5 % of the run.
  const std::string quiet = ReportOf(
      WriteSimulatedRun(ScratchDir("m_quiet"), {{"alpha", e}}, std::nullopt, {0.2, 0.3, 0, 100}),
      "m_q");
  const std::string busy = ReportOf(
      WriteSimulatedRun(ScratchDir("m_busy"), {{"alpha", e}}, std::nullopt, {2.5, 2.7, 3, 5000}),
      "m_b");
  const ReportDiff c = CompareReports(LoadReportOrResult(quiet), LoadReportOrResult(busy));
  ASSERT_EQ(c.machine.size(), 3u);
  EXPECT_EQ(c.machine[0].rfind("load: old 0.25 (0.12 per core), new 2.60 (1.30 per core)", 0), 0u)
      << c.machine[0];
  EXPECT_EQ(c.machine[1].rfind("steal: old 0.0% of the run, new 2.5%", 0), 0u) << c.machine[1];
  EXPECT_EQ(c.machine[2].rfind("preemptions: old 1.7/s, new 83.3/s", 0), 0u) << c.machine[2];
  const std::string md = doc::PrintMarkdown(DiffDocument(c, std::nullopt));
  EXPECT_NE(md.find("Warning: the machine's state differed between the runs:"), std::string::npos);
  const ReportDiff same = CompareReports(LoadReportOrResult(quiet), LoadReportOrResult(quiet));
  EXPECT_TRUE(same.machine.empty());
}

TEST(Compare, ListsOneSidedTricksAndWarnsOnEnvironment) {
  const std::string dir = ScratchDir("env");
  auto j = nlohmann::ordered_json::parse(Slurp(Fixture("run/beta_memory.json")));
  j["context"]["torch_version"] = "2.4.0";
  j["context"]["intra_op_threads"] = "8";
  j["context"]["git_revision"] = "fedcba987654";
  Spit(dir + "/beta_new.json", j.dump());
  std::ostringstream out, err;
  ASSERT_EQ(CompareMain({Fixture("run/beta_memory.json"), dir + "/beta_new.json",
                         "--md=" + dir + "/c.md", "--html=" + dir + "/c.html"},
                        out, err),
            0)
      << err.str();
  const std::string md = Slurp(dir + "/c.md");
  EXPECT_NE(md.find("Warning: the environments differ"), std::string::npos);
  EXPECT_NE(md.find("torch_version: `1.13.0` -> `2.4.0`"), std::string::npos);
  EXPECT_NE(md.find("intra_op_threads"), std::string::npos);
  EXPECT_NE(md.find("## Other environment differences"), std::string::npos);  // git revision
  const std::string html = Slurp(dir + "/c.html");
  EXPECT_NE(html.find("class=\"note\""), std::string::npos);
  EXPECT_NE(html.find("beta_memory"), std::string::npos);

  const ReportDiff c = CompareReports(LoadReportOrResult(Fixture("run/alpha_fast.json")),
                                      LoadReportOrResult(Fixture("run/beta_memory.json")));
  EXPECT_EQ(c.only_old, std::vector<std::string>{"alpha_fast"});
  EXPECT_EQ(c.only_new, std::vector<std::string>{"beta_memory"});
  EXPECT_FALSE(c.geomean_ratio.has_value());
  EXPECT_TRUE(c.speedups.empty());
  const std::string text = doc::PrintMarkdown(DiffDocument(c, std::nullopt));
  EXPECT_NE(text.find("- alpha_fast: only in old"), std::string::npos);
  EXPECT_NE(text.find("- beta_memory: only in new"), std::string::npos);
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
