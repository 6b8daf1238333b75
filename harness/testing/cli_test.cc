// The command-line behaviour of trick binaries and of run_all, exercised as a user
// would: real processes, real files. Binaries come from args (see BUILD).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "common/atomic_file.h"
#include "harness/testing/subprocess.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::map<std::string, std::string> g_tricks;  // id -> binary path
std::string g_run_all;

using trickbench::subprocess::Proc;

Proc Exec(const std::string& cmd) { return trickbench::subprocess::RunCommand(cmd); }

std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(d ? d : "/tmp") + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

json Load(const std::string& path) {
  std::string error;
  const std::string text = trickbench::ReadFile(path, &error);
  EXPECT_EQ(error, "") << path;
  return json::parse(text);
}

// Nothing but the expected files: no temporary or partial file left in `dir`.
std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct BadFlag {
  std::string flags;
  std::string message;  // must appear in the output
};

TEST(TrickBinary, RejectsBadCommandLinesWithExit2AndNoFile) {
  const std::string dir = Tmp("bad_flags");
  const std::string out = dir + "/noop.json";
  const std::vector<BadFlag> cases = {
      {"--threads=abc", "bad value for --threads: 'abc'"},
      {"--threads=0", "bad value for --threads: '0'"},
      {"--repetitions=0", "bad value for --repetitions"},
      {"--repetitions=9x", "bad value for --repetitions: '9x'"},
      {"--min_time=-1", "bad value for --min_time"},
      {"--min_time=nan", "bad value for --min_time"},
      {"--device=tpu", "bad value for --device: 'tpu'"},
      {"--bogus", "unknown flag --bogus"},
      {"positional", "unexpected argument 'positional'"},
      {"--out=", "--out is empty"},
      {"--benchmark_repetitions=3", "is set by the harness"},
      {"--list=yes", "--list takes no value"},
  };
  for (const auto& c : cases) {
    const Proc p = Exec(g_tricks["noop"] + " --out=" + out + " " + c.flags);
    EXPECT_EQ(p.exit_code, 2) << c.flags << ": " << p.output;
    EXPECT_NE(p.output.find(c.message), std::string::npos) << c.flags << ": " << p.output;
  }
  EXPECT_TRUE(Files(dir).empty());
}

TEST(TrickBinary, UnwritableOutputPathIsRejectedBeforeMeasuring) {
  const Proc p = Exec(g_tricks["noop"] + " --out=/nonexistent-dir/x/noop.json");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("bad --out: cannot write into /nonexistent-dir/x"), std::string::npos)
      << p.output;
  EXPECT_EQ(p.output.find("checking"), std::string::npos) << "measured before rejecting";
  const std::string dir = Tmp("out_is_dir");
  const Proc q = Exec(g_tricks["noop"] + " --out=" + dir);
  EXPECT_EQ(q.exit_code, 2) << q.output;
  EXPECT_NE(q.output.find("is a directory"), std::string::npos) << q.output;
}

TEST(TrickBinary, CudaRequestedWithoutCudaIsAClearError) {
  const Proc p = Exec(g_tricks["noop"] + " --device=cuda --out=" + Tmp("cuda") + "/n.json");
  // On a GPU host this binary runs; here it must refuse with the reason.
  if (p.output.find("no CUDA device") == std::string::npos) GTEST_SKIP() << "CUDA present";
  EXPECT_EQ(p.exit_code, 2) << p.output;
}

TEST(TrickBinary, HelpAndListPrintAndExit0) {
  const Proc help = Exec(g_tricks["noop"] + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--repetitions=N"), std::string::npos);
  const Proc list = Exec(g_tricks["noop"] + " --list");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.output.find("variants: baseline optimized"), std::string::npos) << list.output;
}

TEST(TrickBinary, NoopRunWritesOneCompleteResultAndNothingElse) {
  const std::string dir = Tmp("noop");
  const Proc p = Exec(g_tricks["noop"] + " --out=" + dir + "/noop.json --min_time=0.001 --repetitions=3");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(Files(dir), std::vector<std::string>{"noop.json"});
  const json j = Load(dir + "/noop.json");
  EXPECT_EQ(j["trickbench"]["status"], "ok");
  std::map<std::string, int> reps;
  for (const auto& b : j["benchmarks"]) {
    if (b["run_type"] == "iteration") ++reps[b["name"].get<std::string>()];
  }
  EXPECT_EQ(reps, (std::map<std::string, int>{{"BM_noop/baseline", 3}, {"BM_noop/optimized", 3}}));
}

TEST(TrickBinary, WrongAnswerIsInvalidUntimedExit3) {
  const std::string dir = Tmp("wrong");
  const Proc p = Exec(g_tricks["wrong_answer"] + " --out=" + dir + "/w.json --min_time=0.001");
  EXPECT_EQ(p.exit_code, 3) << p.output;
  const json j = Load(dir + "/w.json");
  EXPECT_EQ(j["trickbench"]["status"], "invalid");
  const std::string reason = j["trickbench"]["reason"];
  EXPECT_NE(reason.find("optimized differs from baseline"), std::string::npos) << reason;
  EXPECT_TRUE(j["benchmarks"].empty());
  EXPECT_FALSE(j["trickbench"]["checks"][0]["variants"][1]["equivalent"].get<bool>());
}

TEST(TrickBinary, InactiveTrickIsInvalidWithItsReason) {
  const std::string dir = Tmp("inactive");
  const Proc p = Exec(g_tricks["inactive"] + " --out=" + dir + "/i.json --min_time=0.001");
  EXPECT_EQ(p.exit_code, 3) << p.output;
  const json j = Load(dir + "/i.json");
  EXPECT_EQ(j["trickbench"]["reason"],
            "optimized not in effect: the optimization was silently ignored");
}

TEST(TrickBinary, NeedsCudaIsSkippedWithReasonHere) {
  const std::string dir = Tmp("cuda_only");
  const Proc p = Exec(g_tricks["cuda_only"] + " --out=" + dir + "/c.json");
  const json j = Load(dir + "/c.json");
  if (j["context"]["cuda_available"] == "true") GTEST_SKIP() << "CUDA present";
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(j["trickbench"]["status"], "skipped");
  const std::string reason = j["trickbench"]["reason"];
  EXPECT_NE(reason.find("needs CUDA (device-side test workload)"), std::string::npos) << reason;
  EXPECT_TRUE(j["benchmarks"].empty());
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

TEST(RunAll, RecordsEveryOutcomeAndKeepsGoing) {
  const std::string dir = Tmp("run_all");
  const std::string pidfile = Tmp("pid") + "/hang.pid";
  std::string cmd = "TRICKBENCH_TEST_PIDFILE=" + pidfile + " " + g_run_all;
  for (const char* id : {"noop", "crash", "hang", "wrong_answer", "cuda_only"}) {
    cmd += " " + g_tricks[id];
  }
  cmd += " --out_dir=" + dir + " --timeout=8 --min_time=0.001 --repetitions=2";
  const Proc p = Exec(cmd);
  EXPECT_EQ(p.exit_code, 1) << p.output;  // some tricks failed, the run itself completed
  EXPECT_NE(p.output.find("[1/5] noop"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("[5/5] cuda_only"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("results in " + fs::canonical(dir).string()), std::string::npos);

  const json index = Load(dir + "/index.json");
  EXPECT_TRUE(index["complete"].get<bool>());
  std::map<std::string, std::string> outcome;
  for (const auto& t : index["tricks"]) outcome[t["id"]] = t["outcome"];
  EXPECT_EQ(outcome["noop"], "ok");
  EXPECT_EQ(outcome["crash"], "crashed");
  EXPECT_EQ(outcome["hang"], "timeout");
  EXPECT_EQ(outcome["wrong_answer"], "invalid");
  const json cuda = Load(dir + "/cuda_only.json");
  EXPECT_EQ(outcome["cuda_only"], cuda["context"]["cuda_available"] == "true" ? "ok" : "skipped");
  EXPECT_TRUE(fs::exists(dir + "/crash.log"));
  EXPECT_NE(index["tricks"][1]["reason"].get<std::string>().find("signal 6"), std::string::npos);

  // The hanging trick's own child process went down with it.
  std::ifstream in(pidfile);
  pid_t child = 0;
  ASSERT_TRUE(in >> child) << "hang trick did not record its child";
  for (int i = 0; i < 50 && Alive(child); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(Alive(child)) << "process " << child << " left behind";
  // No temporary files next to the results.
  for (const auto& f : Files(dir)) EXPECT_EQ(f.find(".tmp"), std::string::npos) << f;
}

TEST(RunAll, RejectsUnknownTrickAndBadFlags) {
  const std::string dir = Tmp("run_all_bad");
  Proc p = Exec(g_run_all + " " + g_tricks["noop"] + " --only=nope --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("unknown trick 'nope' (known: noop)"), std::string::npos) << p.output;
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --timeout=soon --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("bad value for --timeout: 'soon'"), std::string::npos) << p.output;
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --frobnicate --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("unknown flag --frobnicate"), std::string::npos) << p.output;
  // A forwarded flag the trick rejects stops the run at once.
  p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["crash"] +
          " --threads=lots --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("rejected the forwarded flags"), std::string::npos) << p.output;
  EXPECT_EQ(p.output.find("crash"), p.output.rfind("crash")) << "went on after a usage error";
  p = Exec(g_run_all + " " + g_tricks["noop"] + " --out_dir=/proc/forbidden");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("cannot write into --out_dir /proc/forbidden"), std::string::npos)
      << p.output;
}

TEST(RunAll, OnlyAndSkipSelectTricks) {
  Proc p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["crash"] + " --skip=crash --list");
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.output, "noop\n");
  p = Exec(g_run_all + " " + g_tricks["noop"] + " " + g_tricks["crash"] + " --only=crash --list");
  EXPECT_EQ(p.output, "crash\n");
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--run_all=", 0) == 0) g_run_all = a.substr(10);
    if (a.rfind("--trick=", 0) == 0) {
      const std::string path = a.substr(8);
      g_tricks[std::filesystem::path(path).filename().string()] = path;
    }
  }
  return RUN_ALL_TESTS();
}
