// The report of a run with paired rounds over several processes: the processes of a
// trick merged, the speedup and interval from stats::EstimateSpeedup, re-rendering
// reproducible, "imprecise" with the processes and rounds that would settle it, left-out
// and invalid processes, interference shown, and older reports refused clearly. The
// grading of the claims on such runs is in grading_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>

#include "reports/analyze.h"
#include "reports/claims.h"
#include "reports/cli.h"
#include "reports/load.h"
#include "reports/markdown_printer.h"
#include "reports/render.h"
#include "reports/report.h"
#include "reports/report_json.h"
#include "reports/rounds_fixture.h"
#include "reports/test_util.h"
#include "stats/simulation.h"
#include "stats/speedup.h"

namespace trickbench {
namespace reports {
namespace {

using json = nlohmann::ordered_json;
using testing::QuietScenario;
using testing::ScratchDir;
using testing::SimulatedTrick;
using testing::Slurp;
using testing::Spit;
using testing::WriteSimulatedRun;

TEST(Rounds, TwoProcessesMergeIntoOneTrick) {
  const stats::Experiment e = stats::Simulate(QuietScenario(2, 1.25), 1);
  const Report r = MergeRun(WriteSimulatedRun(ScratchDir("two"), {{"alpha", e}}));
  ASSERT_EQ(r.tricks.size(), 1u);
  const TrickReport& t = r.tricks[0];
  EXPECT_EQ(t.processes, 2);
  EXPECT_EQ(t.rounds, 15);
  ASSERT_EQ(t.variants.size(), 2u);
  EXPECT_EQ(t.variants[0].samples_ns.size(), 30u);  // pooled over the processes
  EXPECT_EQ(t.variants[0].process_medians_ns.size(), 2u);
  ASSERT_EQ(t.variants[1].log_ratios.size(), 2u);
  ASSERT_EQ(t.effects.size(), 1u);
  const VariantEffect& x = t.effects[0];
  const stats::Speedup expected = stats::EstimateSpeedup(e.LogRatios());
  EXPECT_NEAR(x.time.speedup, expected.speedup, 1e-9);
  EXPECT_NEAR(x.time.low, expected.low, 1e-9);  // t interval: no resampling
  EXPECT_EQ(x.time.method, "t");
  EXPECT_EQ(x.time.processes, 2);
  EXPECT_EQ(x.time.rounds, 30);
  EXPECT_FALSE(x.time.imprecise);
  EXPECT_EQ(x.verdict, Verdict::kHolds) << x.verdict_detail;
}

TEST(Rounds, ATricksOwnEnvironmentIsItsNoteAndADifferenceBetweenItsProcessesAWarning) {
  // The second trick sets its own determinism flags (as deterministic_algorithms does):
  // every one of its processes differs from the run alike, so it says so in its own
  // notes; its third process has another LibTorch, which the run warns about.
  const std::string dir =
      WriteSimulatedRun(ScratchDir("env"), {{"alpha", stats::Simulate(QuietScenario(3, 1.25), 1)},
                                            {"beta", stats::Simulate(QuietScenario(3, 1.25), 2)},
                                            {"gamma", stats::Simulate(QuietScenario(3, 1.25), 3)}});
  for (const std::string trick : {"alpha", "beta", "gamma"}) {
    for (int k = 1; k <= 3; ++k) {
      const std::string path = dir + "/" + trick + ".p" + std::to_string(k) + ".json";
      json j = json::parse(Slurp(path));
      j["context"]["determinism"] =
          "deterministic_algorithms=" + std::string(trick == "beta" ? "1" : "0");
      if (trick == "beta" && k == 3) j["context"]["torch_version"] = "2.10.0";
      Spit(path, j.dump());
    }
  }
  const Report r = MergeRun(dir);
  EXPECT_EQ(
      r.environment_notes,
      (std::vector<std::string>{"beta (process 3): torch_version=2.10.0 (the run's: 2.11.0)"}));
  EXPECT_EQ(r.environment.at("determinism"), "deterministic_algorithms=0");
  EXPECT_EQ(r.environment.at("torch_version"), "2.11.0");
  EXPECT_EQ(r.tricks[1].process_notes.back(),
            "set its own environment in every process: determinism=deterministic_algorithms=1 "
            "(the run's: deterministic_algorithms=0)");
  for (const TrickReport* t : {&r.tricks[0], &r.tricks[2]}) {
    for (const auto& n : t->process_notes) EXPECT_EQ(n.find("environment"), std::string::npos) << n;
  }
}

// A trick that records less (skipped before measuring: no num_cpus, no BLAS) is missing
// those keys, not different: no warning, whichever trick comes first.
TEST(Rounds, AKeyAFileDoesNotRecordIsNoDifference) {
  const std::string dir = WriteSimulatedRun(ScratchDir("env_missing"),
                                            {{"alpha", stats::Simulate(QuietScenario(2, 1.25), 1)},
                                             {"beta", stats::Simulate(QuietScenario(2, 1.25), 2)}});
  for (const std::string trick : {"alpha", "beta"}) {
    for (int k = 1; k <= 2; ++k) {
      const std::string path = dir + "/" + trick + ".p" + std::to_string(k) + ".json";
      json j = json::parse(Slurp(path));
      if (trick == "alpha") {
        j["context"].erase("torch_version");
      } else {
        j["context"]["num_cpus"] = 2;
      }
      Spit(path, j.dump());
    }
  }
  const Report r = MergeRun(dir);
  EXPECT_TRUE(r.environment_notes.empty()) << r.environment_notes.front();
  EXPECT_EQ(r.environment.at("torch_version"), "2.11.0");
  EXPECT_EQ(r.environment.at("num_cpus"), "2");
}

TEST(Rounds, SeveralProcessesBootstrapAndRerenderIdentically) {
  stats::Scenario sc = QuietScenario(10, 1.1);
  const std::string dir = WriteSimulatedRun(
      ScratchDir("ten"),
      {{"alpha", stats::Simulate(sc, 2)}, {"beta", stats::Simulate(QuietScenario(3, 1.0), 3)}});
  const Report r = MergeRun(dir);
  EXPECT_EQ(r.processes, 10);
  EXPECT_EQ(r.tricks[0].processes, 10);
  EXPECT_EQ(r.tricks[0].effects[0].time.method, "bootstrap");
  EXPECT_EQ(r.tricks[0].effects[0].time.p_method, "sign_flip");
  EXPECT_EQ(r.tricks[1].processes, 3);
  EXPECT_EQ(r.tricks[1].effects[0].verdict, Verdict::kDoesNotHold);  // no effect, precise
  // Seeded from the run: the same folder gives the same report, and its JSON reads back
  // to the same report (derived fields recomputed from the log ratios).
  const std::string once = ReportToJson(r).dump();
  EXPECT_EQ(ReportToJson(MergeRun(dir)).dump(), once);
  const Report back = ReportFromJson(results::ParseJsonText(once, "r.json"), "r.json");
  EXPECT_EQ(ReportToJson(back).dump(), once);
}

// An interval as wide as this one, straddling the +-5 % band: neither direction nor
// materiality is known (one wholly beyond the band would still decide: report_test).
TEST(Rounds, ImpreciseIsInconclusiveWithProcessesAndRoundsToSettleIt) {
  stats::Scenario sc = QuietScenario(3, 1.0);
  sc.process_effect_sd = 0.15;  // processes disagree: only more processes help
  const Report r =
      MergeRun(WriteSimulatedRun(ScratchDir("imprecise"), {{"alpha", stats::Simulate(sc, 4)}}));
  const VariantEffect& x = r.tricks[0].effects[0];
  EXPECT_TRUE(x.time.imprecise);
  EXPECT_GT(x.time.half_width, kImpreciseHalfWidth);
  EXPECT_EQ(x.verdict, Verdict::kInconclusive) << x.verdict_detail;
  ASSERT_TRUE(x.processes_to_settle.has_value());
  EXPECT_GT(*x.processes_to_settle, 3);
  EXPECT_NE(x.verdict_detail.find("imprecise (the interval is wider than"), std::string::npos)
      << x.verdict_detail;
  EXPECT_NE(x.verdict_detail.find(" processes x "), std::string::npos) << x.verdict_detail;
  // The advice as time at this run's pace: each simulated process took 30 s, of which its
  // rounds (2 variants x min_time 10 ms each) were timed; the rest is its fixed part.
  const TrickReport& t = r.tricks[0];
  ASSERT_EQ(t.process_seconds, std::vector<double>(3, 30.0));
  const double fixed = 30 - t.rounds * 2 * 0.01;
  const int p = *x.processes_to_settle, k = x.rounds_to_settle.value_or(0);
  EXPECT_NEAR(SecondsAtThisPace(t, "", p, k).value_or(-1), p * (fixed + k * 2 * 0.01), 1e-9);
  EXPECT_NE(x.verdict_detail.find(" at this run's pace)"), std::string::npos) << x.verdict_detail;
  TrickReport lone = t;
  lone.process_seconds.clear();  // a lone result file: no wall times, no time advice
  EXPECT_FALSE(SecondsAtThisPace(lone, "", p, k).has_value());
  EXPECT_TRUE(r.tricks[0].imprecise);
  const ReportCounts n = Count(r);
  EXPECT_EQ(n.settings, 1);
  EXPECT_EQ(n.imprecise, 1);
  const std::string md = doc::PrintMarkdown(ReportDocument(r));
  EXPECT_NE(md.find("1 of 1 timed settings imprecise"), std::string::npos);
  EXPECT_NE(md.find("inconclusive (imprecise)"), std::string::npos);
}

// How much of the run measured: the index's phases summed, each a share of the trick
// processes' wall time, the rest start and exit; kept through report.json.
TEST(Rounds, TheReportSaysWhereTheRunsTimeWent) {
  const std::string dir = WriteSimulatedRun(
      ScratchDir("phases"), {{"alpha", stats::Simulate(QuietScenario(2, 1.25), 5)}});
  EXPECT_EQ(doc::PrintMarkdown(ReportDocument(MergeRun(dir))).find("Time:"), std::string::npos)
      << "an index without phases says nothing of them";
  json index = json::parse(Slurp(dir + "/index.json"));  // two processes of 30 s each
  index["tricks"][0]["phase_seconds"] = {
      {"checks", 6}, {"reproducibility", 3}, {"rounds_setup", 3}, {"rounds", 12}};
  index["tricks"][1]["phase_seconds"] = {
      {"checks", 6}, {"reproducibility", 0}, {"rounds_setup", 3}, {"rounds", 12}};
  Spit(dir + "/index.json", index.dump());
  const Report r = MergeRun(dir);
  ASSERT_TRUE(r.phase_seconds.has_value());
  EXPECT_EQ(r.run_seconds, 60);
  EXPECT_EQ(r.phase_seconds->rounds, 24);
  EXPECT_EQ(r.phase_seconds->checks, 12);
  const std::string md = doc::PrintMarkdown(ReportDocument(r));
  EXPECT_NE(md.find("Time: 60 s in trick processes; in timed rounds 24 s (40%), timed "
                    "instances' set-up, warm-up and calibration 6 s (10%), checks 12 s (20%), "
                    "reproducibility 3 s (5%), process start and exit (and processes that "
                    "recorded nothing) 15 s (25%)."),
            std::string::npos)
      << md;
  const Report back = ReportFromJson(ReportToJson(r), "report.json");
  ASSERT_TRUE(back.phase_seconds.has_value());
  EXPECT_EQ(back.phase_seconds->rounds_setup, 6);
  EXPECT_EQ(doc::PrintMarkdown(ReportDocument(back)), md);
}

// A budgeted run: the index's budget, said in one sentence and in the method line, and
// kept through report.json; a run without one says neither.
TEST(Rounds, TheReportSaysHowABudgetWasSpent) {
  const std::string dir = WriteSimulatedRun(
      ScratchDir("budget"), {{"alpha", stats::Simulate(QuietScenario(2, 1.25), 5)}});
  std::string md = doc::PrintMarkdown(ReportDocument(MergeRun(dir)));
  EXPECT_EQ(md.find("Budget:"), std::string::npos);
  EXPECT_NE(md.find("geometric mean over 2 process(es)"), std::string::npos) << md;
  json index = json::parse(Slurp(dir + "/index.json"));
  index["budget"] = {{"seconds", 540},
                     {"rule", "--budget"},
                     {"first_pass_processes", 3},
                     {"first_pass_seconds", 300},
                     {"max_processes", 24},
                     {"imprecise_half_width", 0.1},
                     {"decision_half_width", 0.025},
                     {"added", {{"alpha", 5}, {"beta", 2}}},
                     {"left_out", 1}};
  Spit(dir + "/index.json", index.dump());
  const Report r = MergeRun(dir);
  ASSERT_TRUE(r.budget.has_value());
  md = doc::PrintMarkdown(ReportDocument(r));
  EXPECT_NE(md.find("Budget: 9.0 min for trick processes (--budget); a first pass of 3 "
                    "process(es) per trick took 5.0 min; then 7 more went to 2 trick(s), where "
                    "they narrowed the projected intervals most per second (judged on the "
                    "spread of the process values only, never on the estimates), first towards "
                    "±10.0%, then towards ±2.5%, at most 24 per trick; 1 of them not started: "
                    "the budget was spent first."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("geometric mean over each trick's processes (3 or more, see Budget)"),
            std::string::npos)
      << md;
  const Report back = ReportFromJson(ReportToJson(r), "report.json");
  ASSERT_TRUE(back.budget.has_value());
  EXPECT_EQ(back.budget->added, r.budget->added);
  EXPECT_EQ(doc::PrintMarkdown(ReportDocument(back)), md);

  // A record that says which target placed them: the sentence counts each.
  for (const auto& [towards_decision, said] :
       {std::pair<int, const char*>{0, "first towards ±10.0% (7), then towards ±2.5% (none),"},
        {2, "first towards ±10.0% (5), then towards ±2.5% (2),"}}) {
    index["budget"]["towards_decision"] = towards_decision;
    Spit(dir + "/index.json", index.dump());
    const Report split = MergeRun(dir);
    ASSERT_TRUE(split.budget.has_value());
    EXPECT_EQ(split.budget->towards_decision, towards_decision);
    md = doc::PrintMarkdown(ReportDocument(split));
    EXPECT_NE(md.find(said), std::string::npos) << md;
    EXPECT_EQ(ReportFromJson(ReportToJson(split), "report.json").budget->towards_decision,
              towards_decision);
  }
  // A bad budget in the index is named.
  index["budget"]["left_out"] = "one";
  Spit(dir + "/index.json", index.dump());
  try {
    MergeRun(dir);
    ADD_FAILURE() << "a bad budget was read";
  } catch (const results::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("budget.left_out: expected an integer"), std::string::npos)
        << e.what();
  }
}

TEST(Rounds, OneProcessSaysItsIntervalLeavesOutProcesses) {
  const Report r = MergeRun(
      WriteSimulatedRun(ScratchDir("one"), {{"alpha", stats::Simulate(QuietScenario(1, 1.3), 5)}}));
  EXPECT_EQ(r.tricks[0].effects[0].time.method, "rounds");
  EXPECT_NE(r.tricks[0].effects[0].verdict_detail.find("one process"), std::string::npos);
}

TEST(Rounds, FailedProcessIsLeftOutAndNotedInvalidOneDecides) {
  const std::string dir = WriteSimulatedRun(ScratchDir("left_out"),
                                            {{"alpha", stats::Simulate(QuietScenario(3, 1.2), 6)}});
  json index = json::parse(Slurp(dir + "/index.json"));
  index["tricks"][1]["outcome"] = "timeout";
  index["tricks"][1]["reason"] = "over 300 s";
  index["tricks"][1]["result"] = nullptr;
  Spit(dir + "/index.json", index.dump());
  const Report r = MergeRun(dir);
  EXPECT_EQ(r.tricks[0].outcome, results::RunOutcome::kOk);
  EXPECT_EQ(r.tricks[0].processes, 2);
  ASSERT_EQ(r.tricks[0].process_notes.size(), 1u);
  EXPECT_EQ(r.tricks[0].process_notes[0], "process 2: timeout: over 300 s (left out)");
  EXPECT_NE(doc::PrintMarkdown(ReportDocument(r)).find("process 2: timeout"), std::string::npos);
  index["tricks"][2]["outcome"] = "invalid";
  index["tricks"][2]["reason"] = "optimized differs";
  Spit(dir + "/index.json", index.dump());
  const Report bad = MergeRun(dir);
  EXPECT_EQ(bad.tricks[0].outcome, results::RunOutcome::kInvalid);
  EXPECT_EQ(bad.tricks[0].verdict, Verdict::kNotApplicable);
}

TEST(Rounds, FaultsAndPreemptionsAreShownWhereLarge) {
  SimulatedTrick heavy{"alpha", stats::Simulate(QuietScenario(2, 1.2), 7), 3.5, 4};
  SimulatedTrick light{"beta", stats::Simulate(QuietScenario(2, 1.2), 8), 0.01, 0};
  const Report r = MergeRun(WriteSimulatedRun(ScratchDir("faults"), {heavy, light}));
  EXPECT_NEAR(r.tricks[0].variants[1].faults_per_iteration, 3.5, 1e-9);
  EXPECT_NEAR(r.tricks[0].variants[1].switches_per_sample, 4, 1e-9);
  const std::string md = doc::PrintMarkdown(ReportDocument(r));
  EXPECT_NE(md.find("3.5 page faults/iteration, 4.0 preemptions/sample"), std::string::npos) << md;
  EXPECT_EQ(md.find("0.0 page faults"), std::string::npos);
}

// On a CUDA device a variant whose host time issuing an iteration is near its device
// time is flagged host-bound; on the CPU host time is the time, never flagged.
TEST(Rounds, HostBoundCudaVariantsAreFlagged) {
  Report r = MergeRun(WriteSimulatedRun(ScratchDir("host_bound"),
                                        {{"alpha", stats::Simulate(QuietScenario(2, 1.2), 12)}}));
  TrickReport& t = r.tricks[0];
  t.device = "cuda:0";
  t.variants[0].host_ns_per_iteration = 0.1 * t.variants[0].summary.median;
  t.variants[1].host_ns_per_iteration = t.variants[1].summary.median;  // the device waited
  const std::string md = doc::PrintMarkdown(ReportDocument(r));
  const size_t at = md.find("host-bound: issuing took");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_EQ(md.find("host-bound", at + 1), std::string::npos) << "the baseline is not host-bound";
  t.device = "cpu";
  EXPECT_EQ(doc::PrintMarkdown(ReportDocument(r)).find("host-bound"), std::string::npos);
}

TEST(Rounds, OlderReportIsRefusedWithWhatToDo) {
  const std::string dir = WriteSimulatedRun(ScratchDir("old_report"),
                                            {{"alpha", stats::Simulate(QuietScenario(2, 1.2), 9)}});
  std::ostringstream out, err;
  ASSERT_EQ(ReportMain({dir}, out, err), 0) << err.str();
  json j = json::parse(Slurp(dir + "/report.json"));
  j["schema_version"] = 1;
  Spit(dir + "/v1.json", j.dump());
  std::ostringstream o2, e2;
  EXPECT_EQ(CompareMain({dir + "/v1.json", dir + "/report.json"}, o2, e2), 2);
  EXPECT_EQ(e2.str(), "compare: " + dir +
                          "/v1.json: schema_version: version 1 is an older report (this build "
                          "reads version 3); re-render it from its run folder: bazel run "
                          "//reports:report -- RUN_DIR\n");
}

TEST(Rounds, BadRoundFieldsInAReportNameTheField) {
  const std::string dir = WriteSimulatedRun(
      ScratchDir("bad_fields"), {{"alpha", stats::Simulate(QuietScenario(2, 1.2), 11)}});
  const json good = ReportToJson(MergeRun(dir));
  const auto error = [&](const std::function<void(json&)>& change) {
    json j = good;
    change(j);
    try {
      ReportFromJson(results::ParseJsonText(j.dump(), "r.json"), "r.json");
    } catch (const results::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error([](json& j) { j["tricks"][0]["variants"][1]["log_ratios"][1] = "x"; }),
            "r.json: tricks[0].variants[1].log_ratios[1]: expected an array, got a string");
  EXPECT_EQ(error([](json& j) { j["tricks"][0]["variants"][1]["log_ratios"] = json::array(); }),
            "r.json: tricks[0].variants[1].log_ratios: no round (settings.rounds is 15)");
  EXPECT_EQ(error([](json& j) { j["tricks"][0]["variants"][0]["process_medians_ns"][0] = -1; }),
            "r.json: tricks[0].variants[0].process_medians_ns[0]: negative time -1.000");
  EXPECT_EQ(error([](json& j) {
              j["ab"] = {{"seed", 1},
                         {"role", "both"},
                         {"old_bin_dir", ""},
                         {"new_bin_dir", ""},
                         {"order", json::array()}};
            }),
            "r.json: ab.role: expected \"old\" or \"new\", got 'both'");
  EXPECT_EQ(error([](json& j) { j["machine"].erase("steal_seconds"); }),
            "r.json: machine.steal_seconds: missing");
}

// Each process's median probe time is kept beside its log ratios (what compare reads
// both runs at one machine speed with), survives report.json, and a bad one is named.
TEST(Rounds, TheSpeedProbeIsKeptPerProcess) {
  SimulatedTrick t{"alpha", stats::Simulate(QuietScenario(3, 1.2), 12)};
  t.probe_ns_by_process = {90e3, 110e3};  // the third process's file predates the probe
  const Report r = MergeRun(WriteSimulatedRun(ScratchDir("probe"), {t}));
  const Variant& optimized = r.tricks.at(0).variants.at(1);
  EXPECT_EQ(optimized.process_probe_ns, (std::vector<double>{90e3, 110e3, 0}));
  EXPECT_TRUE(r.tricks.at(0).variants.at(0).process_probe_ns.empty());  // the baseline
  const json j = ReportToJson(r);
  const Report back = ReportFromJson(results::ParseJsonText(j.dump(), "r.json"), "r.json");
  EXPECT_EQ(back.tricks.at(0).variants.at(1).process_probe_ns, optimized.process_probe_ns);
  // A report from before the probe reads as having none.
  json old = j;
  old["tricks"][0]["variants"][1].erase("process_probe_ns");
  EXPECT_TRUE(ReportFromJson(results::ParseJsonText(old.dump(), "r.json"), "r.json")
                  .tricks.at(0)
                  .variants.at(1)
                  .process_probe_ns.empty());
  const auto error = [&](const std::function<void(json&)>& change) {
    json bad = j;
    change(bad);
    try {
      ReportFromJson(results::ParseJsonText(bad.dump(), "r.json"), "r.json");
    } catch (const results::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error([](json& x) { x["tricks"][0]["variants"][1]["process_probe_ns"][1] = -5; }),
            "r.json: tricks[0].variants[1].process_probe_ns[1]: negative time -5.000");
  EXPECT_EQ(error([](json& x) { x["tricks"][0]["variants"][1]["process_probe_ns"].erase(2); }),
            "r.json: tricks[0].variants[1].process_probe_ns: has 2 values, log_ratios has 3 "
            "processes");
}

// Each variant's iterations per sample, per process, as its result files say (the
// fixture times every variant with 10), kept through report.json; a count below 1 is
// refused, and a report from before it reads as having none.
TEST(Rounds, TheIterationCountsAreKeptPerProcess) {
  const SimulatedTrick t{"alpha", stats::Simulate(QuietScenario(3, 1.2), 12)};
  const Report r = MergeRun(WriteSimulatedRun(ScratchDir("counts"), {t}));
  for (const Variant& v : r.tricks.at(0).variants) {
    EXPECT_EQ(v.process_iterations, (std::vector<int64_t>{10, 10, 10})) << v.name;
  }
  const json j = ReportToJson(r);
  const Report back = ReportFromJson(results::ParseJsonText(j.dump(), "r.json"), "r.json");
  EXPECT_EQ(back.tricks.at(0).variants.at(0).process_iterations,
            r.tricks.at(0).variants.at(0).process_iterations);
  json old = j;
  old["tricks"][0]["variants"][1].erase("process_iterations");
  EXPECT_TRUE(ReportFromJson(results::ParseJsonText(old.dump(), "r.json"), "r.json")
                  .tricks.at(0)
                  .variants.at(1)
                  .process_iterations.empty());
  json bad = j;
  bad["tricks"][0]["variants"][0]["process_iterations"][2] = 0;
  try {
    ReportFromJson(results::ParseJsonText(bad.dump(), "r.json"), "r.json");
    ADD_FAILURE() << "a count of 0 was read";
  } catch (const results::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "r.json: tricks[0].variants[0].process_iterations[2]: out of range: 0");
  }
}

// A run folder holding a schema 1 file (from before paired rounds) is refused, naming
// the file and saying to rerun; a schema 2 process merges with schema 3 ones.
TEST(Rounds, Schema1ProcessesAreRefusedSchema2OnesMerge) {
  const std::string dir = WriteSimulatedRun(
      ScratchDir("mixed"), {{"alpha", stats::Simulate(QuietScenario(2, 1.2), 10)}});
  const Report all3 = MergeRun(dir);
  json p2 = json::parse(Slurp(dir + "/alpha.p2.json"));
  p2["trickbench"]["schema_version"] = 2;
  Spit(dir + "/alpha.p2.json", p2.dump());
  EXPECT_EQ(ReportToJson(MergeRun(dir)).dump(), ReportToJson(all3).dump());
  p2["trickbench"]["schema_version"] = 1;
  p2["trickbench"].erase("rounds");
  Spit(dir + "/alpha.p2.json", p2.dump());
  try {
    MergeRun(dir);
    ADD_FAILURE() << "merged a schema 1 process";
  } catch (const results::InputError& e) {
    EXPECT_EQ(e.field(), "trickbench.schema_version");
    EXPECT_NE(e.file().find("alpha.p2.json"), std::string::npos) << e.file();
    EXPECT_NE(std::string(e.what()).find("rerun the trick"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
