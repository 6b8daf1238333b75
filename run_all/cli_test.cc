// run_all as a user meets it: real trick binaries (harness/testing's test tricks),
// real processes, real files, real signals. Binaries come from args (see BUILD). A
// budgeted run and its settle are in budget_cli_test.cc, an A/B session and another
// run's iteration counts in ab_cli_test.cc.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "results/run_index.h"
#include "results/status.h"
#include "run_all/cli_test_util.h"

namespace trickbench {
namespace run_all_test {
namespace {

namespace fs = std::filesystem;

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

// Every outcome both ways a trick process can start: forked by its trick's fork server
// (the default), and exec'd (--exec), which must classify, time out and clean up alike.
class EveryOutcome : public testing::TestWithParam<bool> {};

TEST_P(EveryOutcome, RecordsEveryOutcomeAndKeepsGoing) {
  const bool fork = GetParam();
  const std::string dir = Tmp(fork ? "run_all_fork" : "run_all");
  const std::string pidfile = Tmp(fork ? "pid_fork" : "pid") + "/hang.pid";
  std::string cmd = "TRICKBENCH_TEST_PIDFILE=" + pidfile + " " + g_run_all;
  for (const char* id : {"noop", "crash", "hang", "wrong_answer", "cuda_only"}) {
    cmd += " " + g_tricks[id];
  }
  cmd += " --out_dir=" + dir + " --timeout=8 --min_time=0.001 --repetitions=2 --processes=1";
  if (!fork) cmd += " --exec";
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
  for (const auto& e : index.tricks) EXPECT_EQ(e.forked, fork) << e.id;
  EXPECT_EQ(p.output.find("not forked"), std::string::npos) << p.output;
}

INSTANTIATE_TEST_SUITE_P(ExecAndFork, EveryOutcome, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "Forked" : "Execd";
                         });

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
}  // namespace run_all_test
}  // namespace trickbench

int main(int argc, char** argv) { return trickbench::run_all_test::Main(argc, argv); }
