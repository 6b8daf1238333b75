// run_all as a user meets it: real trick binaries (harness/testing's test tricks),
// real processes, real files, real signals. Binaries come from args (see BUILD).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/testing/subprocess.h"
#include "results/result_file.h"
#include "results/run_index.h"
#include "results/status.h"

namespace trickbench {
namespace results {
// Failures name the outcome, not its bytes.
void PrintTo(RunOutcome o, std::ostream* os) { *os << Name(o); }
}  // namespace results

namespace {

namespace fs = std::filesystem;
using results::RunOutcome;
using subprocess::Proc;

std::map<std::string, std::string> g_tricks;  // id -> binary path
std::string g_run_all;

Proc Exec(const std::string& cmd) { return subprocess::RunCommand(cmd); }

std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(d ? d : "/tmp") + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, RunOutcome> Outcomes(const results::RunIndex& index) {
  std::map<std::string, RunOutcome> out;
  for (const auto& t : index.tricks) out[t.id] = t.outcome;
  return out;
}

// Waits up to `seconds` for `check`.
template <typename F>
bool Eventually(F check, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!check()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// A stand-in trick binary: a shell script (run_all runs any executable).
std::string Script(const std::string& dir, const std::string& id, const std::string& body) {
  const std::string path = dir + "/" + id;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

// The data tricks' shared data sets (common/shared_data.h): every process of the run is
// told the same folder, which exists while they run and is gone when run_all returns.
TEST(RunAll, GivesItsProcessesOneDataFolderAndRemovesItAfterTheRun) {
  const std::string bin = Tmp("data_bin"), seen = Tmp("data_seen") + "/seen";
  Script(bin, "sees_data",
         "d=\"$TRICKBENCH_SHARED_DATA_DIR\"\n"
         "if [ -d \"$d\" ]; then echo \"$d\" >> " +
             seen + "; else echo missing >> " + seen + "; fi\nexit 1");
  const Proc p =
      Exec(g_run_all + " " + bin + "/sees_data --processes=2 --out_dir=" + Tmp("data_run"));
  std::ifstream in(seen);
  std::string first, second;
  ASSERT_TRUE(std::getline(in, first) && std::getline(in, second)) << p.output;
  EXPECT_NE(first, "missing");
  EXPECT_EQ(first, second) << "two processes of one run, two data folders";
  EXPECT_FALSE(fs::exists(first)) << first << " outlived the run";
}

// Run directly with no binaries named, run_all finds the ones beside it: benches/ next to
// a CMake build's run_all (the runfiles of bazel-bin/benches/run_all work the same way).
TEST(RunAll, RunDirectlyFindsTheTrickBinariesBesideIt) {
  const std::string dir = Tmp("bound");
  fs::create_directories(dir + "/benches");
  fs::copy_file(g_run_all, dir + "/run_all");
  fs::create_symlink(fs::absolute(g_tricks["noop"]), dir + "/benches/noop");
  fs::create_symlink(fs::absolute(g_tricks["crash"]), dir + "/benches/crash");
  fs::create_symlink(dir + "/run_all", dir + "/benches/run_all");  // as in its runfiles
  const Proc p = Exec(dir + "/run_all --list");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(p.output, "crash\nnoop\n");
}

TEST(RunAll, RecordsEveryOutcomeAndKeepsGoing) {
  const std::string dir = Tmp("run_all");
  const std::string pidfile = Tmp("pid") + "/hang.pid";
  std::string cmd = "TRICKBENCH_TEST_PIDFILE=" + pidfile + " " + g_run_all;
  for (const char* id : {"noop", "crash", "hang", "wrong_answer", "cuda_only"}) {
    cmd += " " + g_tricks[id];
  }
  cmd += " --out_dir=" + dir + " --timeout=8 --min_time=0.001 --repetitions=2 --processes=1";
  const Proc p = Exec(cmd);
  EXPECT_EQ(p.exit_code, 1) << p.output;  // some tricks failed, the run itself completed
  EXPECT_NE(p.output.find("[1/5] noop"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("[5/5] cuda_only"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("results in " + fs::canonical(dir).string()), std::string::npos);

  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  EXPECT_TRUE(index.complete);
  EXPECT_TRUE(index.finished.has_value());
  EXPECT_FALSE(index.interrupted_by.has_value());
  EXPECT_EQ(index.forwarded_flags,
            (std::vector<std::string>{"--min_time=0.001", "--repetitions=2"}));
  std::map<std::string, RunOutcome> outcome = Outcomes(index);
  EXPECT_EQ(outcome["noop"], RunOutcome::kOk);
  EXPECT_EQ(outcome["crash"], RunOutcome::kCrashed);
  EXPECT_EQ(outcome["hang"], RunOutcome::kTimeout);
  EXPECT_EQ(outcome["wrong_answer"], RunOutcome::kInvalid);
  const bool cuda =
      Read(dir + "/cuda_only.p1.json").find("\"cuda_available\": \"true\"") != std::string::npos;
  EXPECT_EQ(outcome["cuda_only"], cuda ? RunOutcome::kOk : RunOutcome::kSkipped);
  EXPECT_TRUE(fs::exists(dir + "/crash.p1.log"));
  EXPECT_NE(index.tricks[1].reason.find("signal 6"), std::string::npos) << index.tricks[1].reason;
  EXPECT_NE(p.output.find("run_all: report: "), std::string::npos) << p.output;

  // The hanging trick's own child process went down with it.
  std::ifstream in(pidfile);
  pid_t child = 0;
  ASSERT_TRUE(in >> child) << "hang trick did not record its child";
  EXPECT_TRUE(Eventually([&] { return kill(child, 0) != 0 && errno == ESRCH; }, 5))
      << "process " << child << " left behind";
  // No temporary files next to the results.
  for (const auto& f : Files(dir)) EXPECT_EQ(f.find(".tmp"), std::string::npos) << f;
}

TEST(RunAll, RejectsUnknownTrickAndBadFlagsBeforeWritingAnything) {
  const std::string parent = Tmp("run_all_bad");
  const std::string dir = parent + "/run";
  Proc p = Exec(g_run_all + " " + g_tricks["noop"] + " --only=nope --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("run_all: unknown trick 'nope' (known: noop)"), std::string::npos)
      << p.output;
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --timeout=soon --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("run_all: bad value for --timeout: 'soon'"), std::string::npos)
      << p.output;
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --frobnicate --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("run_all: unknown flag --frobnicate"), std::string::npos) << p.output;
  // A forwarded flag the tricks reject: the first trick binary is asked before the run.
  for (const char* flag : {"--threads=lots", "--device=tpu", "--benchmark_out=x.json"}) {
    p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["crash"] + " " + flag +
             " --out_dir=" + dir);
    EXPECT_EQ(p.exit_code, 2) << flag << ": " << p.output;
    EXPECT_NE(p.output.find("run_all: noop rejected the forwarded flags: "), std::string::npos)
        << flag << ": " << p.output;
    EXPECT_EQ(p.output.find("[1/"), std::string::npos) << "started a trick: " << p.output;
  }
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --out_dir=/proc/forbidden");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("cannot write into --out_dir /proc/forbidden"), std::string::npos)
      << p.output;
  p = Exec(g_run_all + " --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("run_all: no trick binary given, and none found in "), std::string::npos)
      << p.output;
  EXPECT_NE(p.output.find("bazel run //benches:run_all"), std::string::npos) << p.output;
  // An id typed after `bazel run ... --` lands among the binaries: named, not run twice.
  p = Exec(g_run_all + " " + g_tricks["noop"] + " noop --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("run_all: noop is not a trick binary (the arguments are the "
                          "binaries; to run some tricks, --only=noop)"),
            std::string::npos)
      << p.output;
  p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["noop"] + " --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("run_all: trick noop is given twice"), std::string::npos) << p.output;
  // Iterations from a folder that is not a run, or a run that timed none of the tricks.
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --iterations_from=" + parent +
           "/nowhere --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("run_all: --iterations_from: " + parent + "/nowhere/index.json"),
            std::string::npos)
      << p.output;
  results::RunIndex other;
  other.complete = true;
  results::IndexEntry crash;
  crash.id = "noop";
  crash.process = 1;
  crash.outcome = results::RunOutcome::kCrashed;
  other.tricks.push_back(crash);
  fs::create_directories(parent + "/other");
  std::string why;
  ASSERT_TRUE(results::WriteRunIndex(parent + "/other/index.json", other, &why)) << why;
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --iterations_from=" + parent +
           "/other --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("run_all: --iterations_from: none of the chosen tricks was timed by a "
                          "process 1 in " +
                          parent + "/other/index.json"),
            std::string::npos)
      << p.output;
  EXPECT_FALSE(fs::exists(dir)) << "a bad command line left a run folder";
}

TEST(RunAll, ATrickThatRejectsTheFlagsMidRunStopsTheRun) {
  // Accepts the flags when asked (--list), rejects them when run: a binary built
  // differently from the first one.
  const std::string bin = Tmp("picky_bin");
  const std::string picky = Script(bin, "picky",
                                   "case \"$*\" in *--list*) exit 0;; esac\n"
                                   "echo 'trickbench: unknown flag --threads' >&2; exit 2");
  const std::string dir = Tmp("picky_run");
  const Proc p = Exec(g_run_all + " " + picky + " " + g_tricks["noop"] +
                      " --threads=1 --processes=1 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("run_all: picky rejected the forwarded flags; stopping (see " +
                          fs::canonical(dir).string() + "/picky.p1.log)"),
            std::string::npos)
      << p.output;
  EXPECT_EQ(p.output.find("[2/2]"), std::string::npos) << "went on after a usage error";
  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  EXPECT_FALSE(index.complete);
  ASSERT_EQ(index.tricks.size(), 1u);
  EXPECT_EQ(index.tricks[0].outcome, RunOutcome::kFailed);
  EXPECT_EQ(index.tricks[0].exit_code, 2);
}

TEST(RunAll, OnlyAndSkipSelectTricks) {
  Proc p =
      Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["crash"] + " --skip=crash --list");
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.output, "noop\n");
  p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["crash"] + " --only=crash --list");
  EXPECT_EQ(p.output, "crash\n");
}

TEST(RunAll, HelpListsTheFlags) {
  const Proc p = Exec(g_run_all + " --help");
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.output.rfind("usage: bazel run //benches:run_all", 0), 0u) << p.output;
  EXPECT_NE(p.output.find("--flush_l2"), std::string::npos);
}

// (id, process) of each index entry, in the order they ran.
std::vector<std::string> Processes(const results::RunIndex& index) {
  std::vector<std::string> out;
  for (const auto& t : index.tricks) out.push_back(t.id + ".p" + std::to_string(t.process));
  return out;
}

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

// Under `bazel run` (BUILD_WORKING_DIRECTORY set, the binary started in its runfiles) a
// relative --out_dir or --settle is the user's folder, while the trick binaries Bazel
// passes, relative to the runfiles, still run.
TEST(RunAll, UnderBazelRunRelativeFoldersAreTheCallers) {
  const std::string caller = Tmp("caller");
  const std::string env = "BUILD_WORKING_DIRECTORY=" + caller + " ";
  const Proc p = Exec(env + g_run_all + " " + g_tricks["noop"] +
                      " --processes=2 --min_time=0.001 --out_dir=runs/mine");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_TRUE(fs::exists(caller + "/runs/mine/index.json")) << p.output;
  EXPECT_TRUE(fs::exists(caller + "/runs/mine/report.json")) << p.output;
  EXPECT_FALSE(fs::exists("runs/mine")) << "written beside the binary, in its runfiles";

  const Proc s = Exec(env + g_run_all + " " + g_tricks["noop"] + " --settle=runs/mine --budget=5");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  EXPECT_NE(s.output.find("run_all: settling " + fs::canonical(caller + "/runs/mine").string()),
            std::string::npos)
      << s.output;

  // A folder that is not there is named as the user meant it.
  const Proc q = Exec(env + g_run_all + " " + g_tricks["noop"] + " --settle=runs/missing");
  EXPECT_EQ(q.exit_code, results::kExitUsage) << q.output;
  EXPECT_NE(q.output.find(caller + "/runs/missing/index.json"), std::string::npos) << q.output;
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
  std::vector<std::string> expected = {"noop.p1", "wrong_answer.p1", "noop.p2", "noop.p3"};
  for (int k = 4; k <= 3 + added - b.left_out; ++k)
    expected.push_back("noop.p" + std::to_string(k));
  EXPECT_EQ(Processes(index), expected) << s.output;
  EXPECT_EQ(index.processes, 3 + added - b.left_out);
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

// Fake trick binaries for an A/B session: each appends "<build> <id> <process>" to
// `order_file` and fails (no result), which is enough to see what ran when.
std::string FakeBuild(const std::string& name, const std::string& order_file,
                      const std::vector<std::string>& ids) {
  const std::string dir = Tmp(name);
  for (const auto& id : ids) {
    Script(dir, id,
           "for a in \"$@\"; do case \"$a\" in --process=*) k=${a#--process=};; esac; done\n"
           "echo \"" +
               name + " " + id + " $k\" >> " + order_file + "\nexit 1");
  }
  return dir;
}

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(RunAll, AbSessionInterleavesTheBuildsInTheSeedsAbbaOrderAndRecordsIt) {
  const std::string order_file = Tmp("ab_order") + "/order";
  // "c" only in the old build: not run.
  const std::string old_dir = FakeBuild("old", order_file, {"a", "b", "c"});
  const std::string new_dir = FakeBuild("new", order_file, {"a", "b"});
  auto session = [&](const std::string& dir, const std::string& seed_flag) {
    std::remove(order_file.c_str());
    const Proc p = Exec(g_run_all + " --ab=" + old_dir + "," + new_dir + " --processes=3" +
                        seed_flag + " --out_dir=" + dir);
    EXPECT_EQ(p.exit_code, 1) << p.output;  // every fake trick fails
    return p;
  };
  const std::string dir = Tmp("ab_run");
  const Proc p = session(dir, "");
  const results::RunIndex old_index = results::ReadRunIndex(dir + "/old/index.json");
  const results::RunIndex new_index = results::ReadRunIndex(dir + "/new/index.json");
  ASSERT_TRUE(old_index.ab.has_value());
  ASSERT_TRUE(new_index.ab.has_value());
  EXPECT_EQ(old_index.ab->role, "old");
  EXPECT_EQ(new_index.ab->role, "new");
  EXPECT_EQ(old_index.ab->seed, new_index.ab->seed);
  EXPECT_EQ(old_index.ab->order, new_index.ab->order);
  EXPECT_EQ(old_index.ab->old_bin_dir, fs::absolute(old_dir).string());
  EXPECT_EQ(old_index.ab->new_bin_dir, fs::absolute(new_dir).string());
  EXPECT_NE(p.output.find("A/B order seed " + std::to_string(old_index.ab->seed)),
            std::string::npos)
      << p.output;
  // Each side: every trick in both builds, 3 processes, round-robin, its own files.
  for (const auto* index : {&old_index, &new_index}) {
    EXPECT_TRUE(index->complete);
    EXPECT_EQ(Processes(*index),
              (std::vector<std::string>{"a.p1", "b.p1", "a.p2", "b.p2", "a.p3", "b.p3"}));
    EXPECT_EQ(index->processes, 3);
  }
  EXPECT_TRUE(fs::exists(dir + "/old/a.p2.log"));
  EXPECT_TRUE(fs::exists(dir + "/new/b.p3.log"));
  // What ran, in order: pairs of one trick process, the builds as ab.order says, ABBA.
  const std::vector<std::string> ran = Lines(order_file);
  ASSERT_EQ(ran.size(), 12u);
  ASSERT_EQ(old_index.ab->order.size(), 12u);
  const std::vector<std::string> pairs = {"a 1", "b 1", "a 2", "b 2", "a 3", "b 3"};
  for (size_t i = 0; i < ran.size(); ++i) {
    EXPECT_EQ(ran[i], old_index.ab->order[i] + " " + pairs[i / 2]) << i;
    if (i % 4 < 2) {  // ABBA: the first pair of each two is mirrored by the second
      EXPECT_EQ(old_index.ab->order[i], old_index.ab->order[i + 3 - 2 * (i % 4)]) << i;
    }
  }
  // The recorded seed replays the order.
  const std::string again = Tmp("ab_again");
  session(again, " --ab_seed=" + std::to_string(old_index.ab->seed));
  EXPECT_EQ(Lines(order_file), ran);
  EXPECT_EQ(results::ReadRunIndex(again + "/new/index.json").ab->order, old_index.ab->order);
}

// A run timed with another run's iteration counts (its process 1's): every process,
// its own process 1 included, times them and records where they came from.
TEST(RunAll, IterationsFromAnotherRunAreTimedByEveryProcess) {
  const std::string first = Tmp("pin_first"), second = Tmp("pin_second");
  const std::string cmd = g_run_all + " " + g_tricks["noop"] + " --processes=2 --min_time=0.001";
  ASSERT_EQ(Exec(cmd + " --out_dir=" + first).exit_code, 0);
  const Proc p = Exec(cmd + " --out_dir=" + second + " --iterations_from=" + first);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("run_all: 1 of 1 tricks timed with the iterations per sample of " +
                          first + " (its process 1s)"),
            std::string::npos)
      << p.output;
  const std::string pinned = fs::canonical(first).string() + "/noop.p1.json";
  const auto counts = results::ReadResultFile(pinned).trickbench.rounds.at(0).iterations;
  for (const char* stem : {"/noop.p1.json", "/noop.p2.json"}) {
    const results::ResultFile r = results::ReadResultFile(second + stem);
    EXPECT_EQ(r.trickbench.settings.iterations_from, pinned) << stem;
    EXPECT_EQ(r.trickbench.rounds.at(0).iterations, counts) << stem;
  }
  // A run whose process 1 file is of another trick: the trick refuses it, and the run
  // stops saying where to look.
  const std::string wrong = Tmp("pin_wrong");
  fs::copy_file(first + "/index.json", wrong + "/index.json");
  std::string text = Read(pinned);
  const std::string id = "\"id\": \"noop\"";
  ASSERT_NE(text.find(id), std::string::npos);
  text.replace(text.find(id), id.size(), "\"id\": \"other\"");
  std::ofstream(wrong + "/noop.p1.json") << text;
  const Proc refused =
      Exec(cmd + " --out_dir=" + Tmp("pin_refused") + " --iterations_from=" + wrong);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("run_all: noop rejected the forwarded flags or --iterations_from=" +
                                fs::canonical(wrong).string() + "/noop.p1.json; stopping"),
            std::string::npos)
      << refused.output;
  const Proc settle = Exec(g_run_all + " " + g_tricks["noop"] + " --settle=" + second +
                           " --iterations_from=" + first);
  EXPECT_EQ(settle.exit_code, 2) << settle.output;
  EXPECT_NE(settle.output.find("--settle adds to an existing run folder: not with "
                               "--iterations_from"),
            std::string::npos)
      << settle.output;
}

TEST(RunAll, AbSessionWithRealTricksWritesTwoCompleteRunFolders) {
  const std::string old_dir = Tmp("ab_real_old"), new_dir = Tmp("ab_real_new");
  for (const auto& d : {old_dir, new_dir})
    fs::create_symlink(fs::absolute(g_tricks["noop"]), d + "/noop");
  const std::string dir = Tmp("ab_real");
  const Proc p = Exec(g_run_all + " --ab=" + old_dir + "," + new_dir +
                      " --processes=2 --ab_seed=5 --min_time=0.001 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 0) << p.output;
  for (const char* side : {"old", "new"}) {
    const std::string sub = dir + "/" + side;
    const results::RunIndex index = results::ReadRunIndex(sub + "/index.json");
    EXPECT_EQ(index.ab->seed, 5);
    EXPECT_EQ(index.out_dir, fs::canonical(sub).string());
    EXPECT_EQ(Processes(index), (std::vector<std::string>{"noop.p1", "noop.p2"}));
    for (const char* f : {"/noop.p1.json", "/noop.p2.json", "/report.json", "/report.md"}) {
      EXPECT_TRUE(fs::exists(sub + f)) << sub + f;
    }
    // Each build's later processes time the counts of its own process 1.
    EXPECT_EQ(results::ReadResultFile(sub + "/noop.p2.json").trickbench.settings.iterations_from,
              fs::canonical(sub).string() + "/noop.p1.json");
  }
  // The process 1 that ran second timed the other build's counts: like for like.
  const std::vector<std::string> order = results::ReadRunIndex(dir + "/old/index.json").ab->order;
  ASSERT_FALSE(order.empty());
  const std::string first = order.front(), second = first == "old" ? "new" : "old";
  const results::TrickResult p1_first =
      results::ReadResultFile(dir + "/" + first + "/noop.p1.json").trickbench;
  const results::TrickResult p1_second =
      results::ReadResultFile(dir + "/" + second + "/noop.p1.json").trickbench;
  EXPECT_EQ(p1_first.settings.iterations_from, "");
  EXPECT_EQ(p1_second.settings.iterations_from,
            fs::canonical(dir + "/" + first).string() + "/noop.p1.json");
  ASSERT_EQ(p1_first.rounds.size(), 1u);
  ASSERT_EQ(p1_second.rounds.size(), 1u);
  EXPECT_EQ(p1_second.rounds[0].iterations, p1_first.rounds[0].iterations);
  EXPECT_NE(p.output.find("compare them: bazel run //reports:compare -- "), std::string::npos)
      << p.output;
}

TEST(RunAll, AbSessionBuildWhoseVariantsDifferCalibratesItsOwn) {
  const std::string old_dir = Tmp("ab_renamed_old"), new_dir = Tmp("ab_renamed_new");
  fs::create_symlink(fs::absolute(g_tricks["noop"]), old_dir + "/noop");
  fs::create_symlink(fs::absolute(g_tricks["noop_renamed"]), new_dir + "/noop");
  const std::string dir = Tmp("ab_renamed");
  const Proc p = Exec(g_run_all + " --ab=" + old_dir + "," + new_dir +
                      " --processes=2 --ab_seed=5 --min_time=0.001 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 0) << p.output;
  const std::vector<std::string> order = results::ReadRunIndex(dir + "/old/index.json").ab->order;
  ASSERT_FALSE(order.empty());
  const std::string first = order.front(), second = first == "old" ? "new" : "old";
  // The second process 1 refused the first's counts (the variants differ), said so, and
  // calibrated its own; its later process times them.
  EXPECT_NE(p.output.find("(refused the " + first +
                          " build's iteration counts: its variants or cases differ; "
                          "calibrated its own)"),
            std::string::npos)
      << p.output;
  const std::string sub = dir + "/" + second;
  EXPECT_EQ(results::ReadResultFile(sub + "/noop.p1.json").trickbench.settings.iterations_from, "");
  EXPECT_EQ(results::ReadResultFile(sub + "/noop.p2.json").trickbench.settings.iterations_from,
            fs::canonical(sub).string() + "/noop.p1.json");
  for (const char* side : {"old", "new"}) {
    for (const auto& e : results::ReadRunIndex(dir + "/" + side + "/index.json").tricks) {
      EXPECT_EQ(e.outcome, results::RunOutcome::kOk)
          << side << " p" << e.process << ": " << e.reason;
    }
  }
}

TEST(RunAll, AbSessionBadFoldersAreNamed) {
  const std::string empty = Tmp("ab_empty"), other = Tmp("ab_other");
  Proc p = Exec(g_run_all + " --ab=" + empty + "," + other);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("run_all: --ab: no trick binary is in both " + empty + " and " + other),
            std::string::npos)
      << p.output;
  p = Exec(g_run_all + " --ab=/nonexistent," + other);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("run_all: --ab: /nonexistent is not a folder of trick binaries"),
            std::string::npos)
      << p.output;
}

// run_all started in the background, as a shell or a CI job's time limit sees it.
struct Background {
  pid_t pid = -1;
  std::string output_path;

  Background(const std::vector<std::string>& args, const std::string& output,
             const std::string& pidfile)
      : output_path(output) {
    pid = fork();
    if (pid == 0) {
      setenv("TRICKBENCH_TEST_PIDFILE", pidfile.c_str(), 1);
      const int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  // The exit status, or -1 if it did not exit within `seconds` (then it is killed).
  int Wait(double seconds) {
    int status = 0;
    if (!Eventually([&] { return waitpid(pid, &status, WNOHANG) == pid; }, seconds)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

// run_all on the hang trick (then noop, which must not start), stopped by `signal`
// while the trick runs.
void InterruptedRunLeavesNothingRunningAndAnIncompleteIndex(int signal, const std::string& name) {
  const std::string dir = Tmp("interrupted_" + name);
  const std::string pidfile = Tmp("interrupted_pid_" + name) + "/hang.pid";
  Background run({g_run_all, g_tricks["hang"], g_tricks["noop"], "--out_dir=" + dir,
                  "--timeout=120", "--min_time=0.001", "--processes=1"},
                 Tmp("interrupted_out_" + name) + "/output", pidfile);
  ASSERT_GT(run.pid, 0);

  // The hang trick is running once it has recorded its own child.
  pid_t sleeper = 0;
  ASSERT_TRUE(Eventually([&] { return (std::ifstream(pidfile) >> sleeper).good(); }, 60))
      << Read(run.output_path);
  const pid_t group = getpgid(sleeper);
  ASSERT_GT(group, 0);
  EXPECT_NE(group, getpgid(run.pid)) << "the trick should have a process group of its own";
  // The index exists before the first trick has ended.
  const results::RunIndex before = results::ReadRunIndex(dir + "/index.json");
  EXPECT_FALSE(before.complete);
  EXPECT_TRUE(before.tricks.empty());

  ASSERT_EQ(kill(run.pid, signal), 0);
  const int exit_status = run.Wait(30);
  const std::string output = Read(run.output_path);
  EXPECT_EQ(exit_status, 128 + signal) << output;
  EXPECT_NE(output.find("run_all: " + name +
                        ": stopped after 1 of 2 trick processes; index (incomplete)"),
            std::string::npos)
      << output;
  // Nothing of the trick's group is left: neither the trick nor its child.
  EXPECT_TRUE(Eventually([&] { return kill(-group, 0) != 0 && errno == ESRCH; }, 5))
      << "processes of group " << group << " left running";

  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  EXPECT_FALSE(index.complete);
  EXPECT_EQ(index.interrupted_by, name);
  EXPECT_TRUE(index.finished.has_value());
  ASSERT_EQ(index.tricks.size(), 1u) << "noop ran after the interruption";
  EXPECT_EQ(index.tricks[0].id, "hang");
  EXPECT_EQ(index.tricks[0].outcome, RunOutcome::kInterrupted);
  EXPECT_EQ(index.tricks[0].reason, "run_all got " + name + " and stopped it");
  EXPECT_FALSE(fs::exists(dir + "/noop.p1.log"));
  for (const auto& f : Files(dir)) EXPECT_EQ(f.find(".tmp"), std::string::npos) << f;
}

TEST(RunAll, SigtermStopsTheTrickAndWritesAnIncompleteIndex) {
  InterruptedRunLeavesNothingRunningAndAnIncompleteIndex(SIGTERM, "SIGTERM");
}

TEST(RunAll, SigintStopsTheTrickAndWritesAnIncompleteIndex) {
  InterruptedRunLeavesNothingRunningAndAnIncompleteIndex(SIGINT, "SIGINT");
}

}  // namespace
}  // namespace trickbench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--run_all=", 0) == 0) trickbench::g_run_all = a.substr(10);
    if (a.rfind("--trick=", 0) == 0) {
      const std::string path = a.substr(8);
      trickbench::g_tricks[std::filesystem::path(path).filename().string()] = path;
    }
  }
  return RUN_ALL_TESTS();
}
