// run_all's time budget as a user meets it: a first pass, the extra processes where the
// intervals are widest, and --settle on a finished run; real test tricks and files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "results/result_file.h"
#include "results/run_index.h"
#include "results/status.h"
#include "run_all/cli_test_util.h"

namespace trickbench {
namespace run_all_test {
namespace {

namespace fs = std::filesystem;

// Without --processes: a first pass of 3 processes per trick, then the budget's extra
// processes (budget.h), numbered on from 4, recorded in the index and said in the report.
TEST(RunAll, ABudgetedRunAddsProcessesAfterItsFirstPassAndRecordsWhy) {
  const std::string dir = Tmp("budgeted");
  const Proc p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["wrong_answer"] +
                      " --budget=40 --min_time=0.001 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 1) << p.output;  // wrong_answer is invalid
  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  ASSERT_TRUE(index.budget.has_value()) << p.output;
  const results::RunBudget& b = *index.budget;
  EXPECT_EQ(b.seconds, 40);
  EXPECT_EQ(b.rule, "--budget");
  EXPECT_EQ(b.first_pass_processes, 3);
  EXPECT_EQ(b.max_processes, 24);
  EXPECT_GT(b.first_pass_seconds, 0);
  EXPECT_EQ(b.added.count("wrong_answer"), 0u);  // invalid in process 1: never again
  const int added = b.added.count("noop") ? b.added.at("noop") : 0;
  EXPECT_EQ(index.processes, 3 + added);
  // Which target placed the added processes is recorded (and said in the report).
  ASSERT_TRUE(b.towards_decision.has_value());
  EXPECT_LE(*b.towards_decision, added);
  std::vector<std::string> expected = {"noop.p1", "wrong_answer.p1", "noop.p2", "noop.p3"};
  for (int k = 4; k <= 3 + added - b.left_out; ++k)
    expected.push_back("noop.p" + std::to_string(k));
  EXPECT_EQ(Processes(index), expected) << p.output;
  EXPECT_NE(p.output.find("run_all: first pass "), std::string::npos) << p.output;
  const std::string report = Read(dir + "/report.md");
  EXPECT_NE(report.find("Budget: 40 s for trick processes (--budget); a first pass of 3"),
            std::string::npos)
      << report;
  EXPECT_NE(Read(dir + "/report.json").find("\"budget\""), std::string::npos);

  // A budget the first pass already spent buys nothing more.
  const std::string spent = Tmp("budget_spent");
  const Proc q = Exec(g_run_all + " " + g_tricks["noop"] + " --budget=0.01 --min_time=0.001" +
                      " --out_dir=" + spent);
  EXPECT_EQ(q.exit_code, 0) << q.output;
  const results::RunIndex spent_index = results::ReadRunIndex(spent + "/index.json");
  ASSERT_TRUE(spent_index.budget.has_value());
  EXPECT_TRUE(spent_index.budget->added.empty());
  EXPECT_EQ(spent_index.processes, 3);
  EXPECT_EQ(Processes(spent_index), (std::vector<std::string>{"noop.p1", "noop.p2", "noop.p3"}));
}

// --settle: more processes for a finished run, in its folder, numbered on from each
// trick's last, with the run's own flags; its budget record and report say so.
TEST(RunAll, SettleAddsProcessesToAFinishedRunAndWritesItsReportAgain) {
  const std::string dir = Tmp("settle");
  const Proc p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["wrong_answer"] +
                      " --processes=3 --rounds=3 --min_time=0.001 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 1) << p.output;  // wrong_answer is invalid
  const std::string before = Read(dir + "/index.json");

  const Proc s = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["wrong_answer"] +
                      " --settle=" + dir + "/report.json --budget=30");
  EXPECT_EQ(s.exit_code, 0) << s.output;  // only noop ran again, and it is measured
  EXPECT_NE(s.output.find("run_all: settling " + fs::canonical(dir).string()), std::string::npos)
      << s.output;
  EXPECT_NE(s.output.find("), forked as the run's processes were"), std::string::npos) << s.output;
  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  EXPECT_TRUE(index.complete);
  EXPECT_EQ(index.forwarded_flags, (std::vector<std::string>{"--rounds=3", "--min_time=0.001"}));
  ASSERT_TRUE(index.budget.has_value()) << s.output;
  const results::RunBudget& b = *index.budget;
  EXPECT_EQ(b.rule.rfind("--processes=3; then run_all --settle --budget: 30 s", 0), 0u) << b.rule;
  EXPECT_EQ(b.first_pass_processes, 3);
  EXPECT_DOUBLE_EQ(b.seconds, b.first_pass_seconds + 30);
  EXPECT_EQ(b.added.count("wrong_answer"), 0u);  // invalid in process 1: never again
  const int added = b.added.count("noop") ? b.added.at("noop") : 0;
  ASSERT_TRUE(b.towards_decision.has_value());
  EXPECT_LE(*b.towards_decision, added);
  std::vector<std::string> expected = {"noop.p1", "wrong_answer.p1", "noop.p2", "noop.p3"};
  for (int k = 4; k <= 3 + added - b.left_out; ++k)
    expected.push_back("noop.p" + std::to_string(k));
  EXPECT_EQ(Processes(index), expected) << s.output;
  EXPECT_EQ(index.processes, 3 + added - b.left_out);
  // The run's processes were forked: so are the settle's.
  for (const results::IndexEntry& e : index.tricks) EXPECT_TRUE(e.forked) << e.id << e.process;
  for (int k = 4; k <= 3 + added - b.left_out; ++k) {
    EXPECT_TRUE(fs::exists(dir + "/noop.p" + std::to_string(k) + ".json")) << k;
    // The run's forwarded flags, not run_all's defaults.
    EXPECT_NE(Read(dir + "/noop.p" + std::to_string(k) + ".json").find("\"rounds\": 3"),
              std::string::npos);
  }
  EXPECT_NE(Read(dir + "/report.md").find("Budget: "), std::string::npos);
  EXPECT_NE(Read(dir + "/report.md").find("then run_all --settle --budget: 30 s"),
            std::string::npos);

  // What cannot be settled is named, exit 2, and the run folder is left as it was.
  const std::string settled = Read(dir + "/index.json");
  const std::string noop = g_run_all + " " + g_tricks["noop"] + " ";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--settle=" + dir + " --processes=4",
            "--settle adds to an existing run folder: not "
            "with --processes"},
           {"--settle=" + dir + " --rounds=4", "--settle runs the run's own forwarded flags"},
           {"--settle=" + dir + " --exec", "--settle starts its processes as the run's were"},
           {"--settle=" + dir + "/nothing", "nothing/index.json"},
       }) {
    const Proc bad = Exec(noop + args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << args << "\n" << bad.output;
  }
  // A trick of the run without its binary, unless left out on purpose.
  const Proc missing = Exec(noop + "--settle=" + dir);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("no binary for wrong_answer"), std::string::npos) << missing.output;
  EXPECT_EQ(Read(dir + "/index.json"), settled);
  EXPECT_NE(before, settled);

  // An interrupted run is refused.
  std::string incomplete = settled;
  const auto at = incomplete.find("\"complete\": true");
  ASSERT_NE(at, std::string::npos);
  incomplete.replace(at, 16, "\"complete\": false");
  std::ofstream(dir + "/index.json") << incomplete;
  const Proc refused = Exec(noop + g_tricks["wrong_answer"] + " --settle=" + dir);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("only a finished run can be settled"), std::string::npos)
      << refused.output;
}

// A run of exec'd processes is settled with exec'd ones, so that its report does not
// merge the two ways of starting a process without saying so.
TEST(RunAll, SettleOfAnExecdRunExecsItsProcesses) {
  const std::string dir = Tmp("settle_exec");
  const std::string noop = g_run_all + " " + g_tricks["noop"];
  const Proc p = Exec(noop + " --exec --processes=2 --rounds=3 --min_time=0.001 --out_dir=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  const Proc s = Exec(noop + " --settle=" + dir + " --budget=10");
  EXPECT_EQ(s.exit_code, 0) << s.output;
  // How many it adds depends on the spreads (none where 2 processes spread too much to
  // settle): the line says how they would start, and any that ran did so.
  EXPECT_NE(s.output.find("), exec'd as the run's processes were"), std::string::npos) << s.output;
  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  for (const results::IndexEntry& e : index.tricks) EXPECT_FALSE(e.forked) << e.process;
  EXPECT_EQ(s.output.find("not forked"), std::string::npos) << s.output;  // no fallback
}

TEST(RunAll, RunsEachTrickInSeveralProcessesRoundRobinAndNotAgainAfterASkip) {
  const std::string dir = Tmp("processes");
  const Proc p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["wrong_answer"] + " " +
                      g_tricks["cuda_only"] + " --processes=3 --min_time=0.001 --out_dir=" + dir);
  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  const bool cuda =
      Read(dir + "/cuda_only.p1.json").find("\"cuda_available\": \"true\"") != std::string::npos;
  EXPECT_EQ(p.exit_code, 1) << p.output;  // wrong_answer is invalid
  EXPECT_EQ(index.processes, 3);
  EXPECT_TRUE(index.complete);
  // Round-robin; wrong_answer (invalid) and, without CUDA, cuda_only (skipped) in
  // process 1 are not run again.
  EXPECT_EQ(Processes(index),
            cuda ? (std::vector<std::string>{"noop.p1", "wrong_answer.p1", "cuda_only.p1",
                                             "noop.p2", "cuda_only.p2", "noop.p3", "cuda_only.p3"})
                 : (std::vector<std::string>{"noop.p1", "wrong_answer.p1", "cuda_only.p1",
                                             "noop.p2", "noop.p3"}))
      << p.output;
  EXPECT_NE(p.output.find("wrong_answer invalid in process 1: not run again"), std::string::npos)
      << p.output;
  if (!cuda) {
    EXPECT_NE(p.output.find("cuda_only skipped in process 1: not run again"), std::string::npos)
        << p.output;
  }
  EXPECT_FALSE(fs::exists(dir + "/wrong_answer.p2.log"));
  // Each process wrote its own result and log, named in the index, and was told which
  // process it is.
  for (const auto& t : index.tricks) {
    if (t.id != "noop") continue;
    const std::string stem = "noop.p" + std::to_string(t.process);
    EXPECT_EQ(t.outcome, RunOutcome::kOk) << stem << ": " << t.reason;
    EXPECT_EQ(t.result, stem + ".json");
    EXPECT_EQ(t.log, stem + ".log");
    EXPECT_TRUE(fs::exists(dir + "/" + t.log)) << t.log;
    const std::string result = Read(dir + "/" + stem + ".json");
    EXPECT_NE(result.find("\"process\": " + std::to_string(t.process)), std::string::npos)
        << stem << " does not record its process";
    // Where its time went, copied from its result file; the phases fit in its wall time,
    // and only process 1 checks reproducibility.
    ASSERT_TRUE(t.phase_seconds.has_value()) << stem;
    EXPECT_GT(t.phase_seconds->rounds, 0) << stem;
    EXPECT_GT(t.phase_seconds->checks, 0) << stem;
    EXPECT_LE(t.phase_seconds->Sum(), t.seconds) << stem;
    EXPECT_EQ(t.phase_seconds->reproducibility > 0, t.process == 1) << stem;
    // Equivalence and "in effect" are checked once per run; memory in every process.
    EXPECT_EQ(result.find("\"checks_memory_only\": true") == std::string::npos, t.process == 1)
        << stem;
    EXPECT_NE(result.find("\"peak_bytes\""), std::string::npos) << stem;
    // Process 1 calibrates the iterations per sample; the later ones time its counts.
    const results::ResultFile r = results::ReadResultFile(dir + "/" + stem + ".json");
    EXPECT_EQ(r.trickbench.settings.iterations_from,
              t.process == 1 ? "" : fs::canonical(dir).string() + "/noop.p1.json")
        << stem;
  }
  EXPECT_NE(p.output.find("  timed "), std::string::npos) << p.output;
  for (const auto& t : index.tricks) {
    if (t.id != "wrong_answer") continue;
    ASSERT_TRUE(t.phase_seconds.has_value());
    EXPECT_EQ(t.phase_seconds->rounds, 0) << "invalid: never timed";
  }
  // The machine around the run (Linux has a load average; steal and switches counted).
  EXPECT_GE(index.machine.load_start, 0);
  EXPECT_GE(index.machine.load_end, 0);
  EXPECT_GE(index.machine.steal_seconds, 0);
  EXPECT_GE(index.machine.involuntary_switches, 0);
  EXPECT_FALSE(index.ab.has_value());
}

}  // namespace
}  // namespace run_all_test
}  // namespace trickbench

int main(int argc, char** argv) { return trickbench::run_all_test::Main(argc, argv); }
