// The command-line behaviour of trick binaries, exercised as a user would: real
// processes, real files. Binaries come from args (see BUILD). run_all's own are in
// run_all/cli_test.cc, budget_cli_test.cc and ab_cli_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "common/atomic_file.h"
#include "common/test_files.h"
#include "harness/testing/subprocess.h"
#include "stats/schedule.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::map<std::string, std::string> g_tricks;  // id -> binary path
std::string g_gpu_selftest;

using trickbench::subprocess::Proc;
using trickbench::test_files::FileNames;
using trickbench::test_files::ScratchDir;

Proc Exec(const std::string& cmd) { return trickbench::subprocess::RunCommand(cmd); }

json Load(const std::string& path) {
  std::string error;
  const std::string text = trickbench::ReadFile(path, &error);
  EXPECT_EQ(error, "") << path;
  return json::parse(text);
}

struct BadFlag {
  std::string flags;
  std::string message;  // must appear in the output
};

TEST(TrickBinary, RejectsBadCommandLinesWithExit2AndNoFile) {
  const std::string dir = ScratchDir("bad_flags");
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
      {"--serve", "--serve is for run_all's fork servers and takes no other flag"},
  };
  for (const auto& c : cases) {
    // Every case but --out's own names a writable --out, so nothing but the flag is wrong.
    const std::string out_flag = c.flags.rfind("--out", 0) == 0 ? "" : " --out=" + out;
    const Proc p = Exec(g_tricks["noop"] + out_flag + " " + c.flags);
    EXPECT_EQ(p.exit_code, 2) << c.flags << ": " << p.output;
    EXPECT_NE(p.output.find(c.message), std::string::npos) << c.flags << ": " << p.output;
  }
  EXPECT_TRUE(FileNames(dir).empty());
}

// run_all's fork server (harness/fork_server.h), driven by hand: one request, one
// child that measures as an exec'd process would, and the end of input ends it.
TEST(TrickBinary, ServeRunsOneProcessPerRequest) {
  const std::string dir = ScratchDir("serve");
  const std::string request = R"({"args":["--out=)" + dir + R"(/noop.json","--min_time=0.001",)" +
                              R"("--rounds=2"],"log":")" + dir + R"(/noop.log"})";
  const Proc p = Exec("echo '" + request + "' | " + g_tricks["noop"] + " --serve");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(p.output.rfind("started ", 0), 0u) << p.output;
  EXPECT_NE(p.output.find("\nexited 0\n"), std::string::npos) << p.output;
  EXPECT_NE(trickbench::test_files::ReadExisting(dir + "/noop.json").find("\"rounds\""),
            std::string::npos);
}

TEST(TrickBinary, UnwritableOutputPathIsRejectedBeforeMeasuring) {
  const Proc p = Exec(g_tricks["noop"] + " --out=/nonexistent-dir/x/noop.json");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("bad --out: cannot write into /nonexistent-dir/x"), std::string::npos)
      << p.output;
  EXPECT_EQ(p.output.find("checking"), std::string::npos) << "measured before rejecting";
  const std::string dir = ScratchDir("out_is_dir");
  const Proc q = Exec(g_tricks["noop"] + " --out=" + dir);
  EXPECT_EQ(q.exit_code, 2) << q.output;
  EXPECT_NE(q.output.find("is a directory"), std::string::npos) << q.output;
}

TEST(TrickBinary, CudaRequestedWithoutCudaIsAClearError) {
  const Proc p = Exec(g_tricks["noop"] + " --device=cuda --out=" + ScratchDir("cuda") + "/n.json");
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

TEST(TrickBinary, HelpListsTheTimingBackendsFlags) {
  // A CUDA build's backend declares --flush_l2; a CPU build lists it with what it needs.
  const Proc help = Exec(g_tricks["noop"] + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--flush_l2"), std::string::npos) << help.output;
}

TEST(TrickBinary, CheckOnlyWritesACheckedResultWithoutTimings) {
  const std::string dir = ScratchDir("check_only");
  const Proc p = Exec(g_tricks["noop"] + " --out=" + dir + "/noop.json --check_only");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(p.output.find("x speed (median"), std::string::npos) << "timed with --check_only";
  const json j = Load(dir + "/noop.json");
  EXPECT_EQ(j["trickbench"]["status"], "checked");
  EXPECT_EQ(j["trickbench"]["reason"], "timing not run (--check_only)");
  EXPECT_FALSE(j["trickbench"].contains("rounds"));
  EXPECT_TRUE(Load(dir + "/noop.gbench.json")["benchmarks"].empty());
  EXPECT_EQ(j["trickbench"]["checks"][0]["variants"].size(), 2u);
  EXPECT_TRUE(j["trickbench"]["reproducibility"]["checked"].get<bool>());
  EXPECT_EQ(j["trickbench"]["settings"]["timing"], "wall_clock");
}

TEST(TrickBinary, ProfileWritesOneTracePerVariantAndListsThem) {
  const std::string dir = ScratchDir("profile");
  const Proc p = Exec(g_tricks["noop"] + " --out=" + dir + "/noop.json --check_only --profile");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  const json j = Load(dir + "/noop.json");
  ASSERT_EQ(j["context"]["profiles"].size(), 2u) << j["context"].dump();
  for (const auto& path : j["context"]["profiles"]) {
    const std::string trace = path.get<std::string>();
    EXPECT_EQ(trace.rfind(dir + "/noop.profile/", 0), 0u) << trace;
    EXPECT_NE(p.output.find("noop: profile: " + trace), std::string::npos) << p.output;
    EXPECT_FALSE(Load(trace)["traceEvents"].empty()) << trace;
  }
  // An invalid trick is not profiled: its traces would show a variant that is wrong.
  const Proc bad = Exec(g_tricks["wrong_answer"] + " --out=" + dir + "/wrong.json --profile");
  EXPECT_EQ(bad.exit_code, 3) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/wrong.profile")) << bad.output;
}

TEST(GpuSelftest, WithoutCudaSupportOrADeviceSaysWhyAndExits2) {
  const std::string dir = ScratchDir("selftest");
  const Proc p = Exec(g_gpu_selftest + " --out=" + dir + "/selftest.json");
  if (p.exit_code == 0) GTEST_SKIP() << "a CUDA device is here: " << p.output;
  EXPECT_EQ(p.exit_code, 2) << p.output;
  const bool no_build = p.output.find("this build has no CUDA support") != std::string::npos;
  const bool no_device = p.output.find("no CUDA device visible") != std::string::npos;
  EXPECT_TRUE(no_build || no_device) << p.output;
  EXPECT_TRUE(FileNames(dir).empty()) << "wrote figures without measuring";
  const Proc bad = Exec(g_gpu_selftest + " --frobnicate");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("gpu_selftest: unknown flag --frobnicate"), std::string::npos)
      << bad.output;
  const Proc help = Exec(g_gpu_selftest + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--out="), std::string::npos) << help.output;
}

// Without --out the result goes under the runs root (common/output_dir.h), never beside the
// sources: $TRICKBENCH_RUNS_DIR here, <workspace>/runs under `bazel run`.
TEST(TrickBinary, DefaultResultFileGoesUnderTheRunsRoot) {
  const std::string dir = ScratchDir("runs_root");
  const Proc p = Exec("TRICKBENCH_RUNS_DIR=" + dir + "/runs " + g_tricks["noop"] +
                      " --min_time=0.001 --repetitions=2");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(FileNames(dir + "/runs"), (std::vector<std::string>{"noop.gbench.json", "noop.json"}));
  EXPECT_EQ(Load(dir + "/runs/noop.json")["trickbench"]["status"], "ok");
}

// Beside each record a trick binary writes Google Benchmark's JSON, printed from the
// record, so that its own compare.py (Debian's libbenchmark-tools, which
// tools/install_deps.sh installs) reads two of them: it must exit 0 and name every
// variant's benchmark, with its U test over the rounds.
TEST(TrickBinary, GoogleBenchmarksComparePyReadsTwoExports) {
  constexpr char kComparePy[] = "/usr/share/benchmark/compare.py";
  ASSERT_TRUE(std::filesystem::exists(kComparePy))
      << kComparePy << " is missing: install libbenchmark-tools (tools/install_deps.sh)";
  const std::string dir = ScratchDir("compare_py");
  for (const char* name : {"a", "b"}) {
    const Proc p =
        Exec(g_tricks["noop"] + " --out=" + dir + "/" + name + ".json --min_time=0.001 --rounds=9");
    ASSERT_EQ(p.exit_code, 0) << p.output;
  }
  const Proc cmp = Exec(std::string("/usr/bin/python3 ") + kComparePy + " --no-color benchmarks " +
                        dir + "/a.gbench.json " + dir + "/b.gbench.json 2>&1");
  ASSERT_EQ(cmp.exit_code, 0) << cmp.output;
  for (const char* benchmark : {"BM_noop/baseline ", "BM_noop/optimized ",
                                "BM_noop/optimized_pvalue", "BM_noop/optimized_median"}) {
    EXPECT_NE(cmp.output.find(benchmark), std::string::npos) << benchmark << "\n" << cmp.output;
  }
  EXPECT_EQ(cmp.output.find("Traceback"), std::string::npos) << cmp.output;
}

// The record and its export, nothing else; the samples are written once, as the rounds,
// and the export's entries are those rounds, sample for sample.
TEST(TrickBinary, NoopRunWritesTheRecordAndItsExportAndNothingElse) {
  const std::string dir = ScratchDir("noop");
  const Proc p =
      Exec(g_tricks["noop"] + " --out=" + dir + "/noop.json --min_time=0.001 --repetitions=3");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(FileNames(dir), (std::vector<std::string>{"noop.gbench.json", "noop.json"}));
  const json j = Load(dir + "/noop.json");
  EXPECT_EQ(j["trickbench"]["status"], "ok");
  EXPECT_FALSE(j.contains("benchmarks"));
  const json& samples = j["trickbench"]["rounds"][0]["samples"];
  std::map<std::string, std::vector<double>> recorded, exported;
  for (size_t i = 0; i < samples["round"].size(); ++i) {
    recorded[samples["variant"][i] == 0 ? "BM_noop/baseline" : "BM_noop/optimized"].push_back(
        samples["ns_per_iteration"][i]);
  }
  const json gb = Load(dir + "/noop.gbench.json");
  for (const auto& b : gb["benchmarks"]) {
    if (b["run_type"] == "iteration")
      exported[b["name"].get<std::string>()].push_back(b["real_time"]);
  }
  EXPECT_EQ(exported.at("BM_noop/baseline").size(), 3u);
  EXPECT_EQ(exported.at("BM_noop/optimized").size(), 3u);
  for (auto& [name, v] : recorded) std::sort(v.begin(), v.end());
  for (auto& [name, v] : exported) std::sort(v.begin(), v.end());
  EXPECT_EQ(exported, recorded);
}

// The rounds of one case: every variant once per round, the order redrawn from the
// recorded seed, the same calibrated iteration count in every round.
void ExpectRoundsFollowTheSchedule(const json& c, int variants, int rounds) {
  const auto order_seed = c["order_seed"].get<uint64_t>();
  const trickbench::stats::RoundSchedule plan =
      trickbench::stats::ScheduleRounds(variants, rounds, order_seed);
  const json& s = c["samples"];
  ASSERT_EQ(s["round"].size(), static_cast<size_t>(variants * rounds));
  for (size_t i = 0; i < s["round"].size(); ++i) {
    const int r = s["round"][i], position = s["position"][i], v = s["variant"][i];
    EXPECT_EQ(r, static_cast<int>(i) / variants);
    EXPECT_EQ(position, static_cast<int>(i) % variants);
    EXPECT_EQ(v, plan.rounds[r][position]) << "round " << r << " position " << position;
    EXPECT_EQ(s["iterations"][i], c["iterations"][v]);
    EXPECT_GT(s["ns_per_iteration"][i].get<double>(), 0);
    // On the wall clock the host's time issuing the iterations is the sample's time.
    EXPECT_DOUBLE_EQ(s["host_ns_per_iteration"][i].get<double>(),
                     s["ns_per_iteration"][i].get<double>());
    EXPECT_GE(s["minor_faults_per_iteration"][i].get<double>(), 0);
    EXPECT_GT(s["probe_ns"][i].get<double>(), 0) << "no speed probe beside sample " << i;
  }
}

// Median over rounds of baseline ns / optimized ns.
double MedianRatio(const json& c) {
  std::map<int, double> base, opt;
  const json& s = c["samples"];
  for (size_t i = 0; i < s["round"].size(); ++i) {
    (s["variant"][i] == 0 ? base : opt)[s["round"][i].get<int>()] = s["ns_per_iteration"][i];
  }
  std::vector<double> ratios;
  for (const auto& [r, ns] : base) ratios.push_back(ns / opt.at(r));
  std::sort(ratios.begin(), ratios.end());
  return ratios[ratios.size() / 2];
}

TEST(TrickBinary, RoundsAreRecordedAndReproducibleFromTheSeed) {
  const std::string dir = ScratchDir("rounds");
  const std::string cmd = g_tricks["busy"] + " --min_time=0.002 --rounds=6 --seed=5";
  const Proc a = Exec(cmd + " --out=" + dir + "/a.json");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const Proc b = Exec(cmd + " --out=" + dir + "/b.json --process=2");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const json ja = Load(dir + "/a.json"), jb = Load(dir + "/b.json");
  EXPECT_EQ(ja["trickbench"]["schema_version"], 3);
  EXPECT_EQ(ja["trickbench"]["settings"]["rounds"], 6);
  ASSERT_EQ(ja["trickbench"]["rounds"].size(), 1u);
  ExpectRoundsFollowTheSchedule(ja["trickbench"]["rounds"][0], 2, 6);
  ExpectRoundsFollowTheSchedule(jb["trickbench"]["rounds"][0], 2, 6);
  // Another process of the same run draws other orders, and leaves reproducibility to
  // process 1.
  EXPECT_NE(ja["trickbench"]["rounds"][0]["order_seed"],
            jb["trickbench"]["rounds"][0]["order_seed"]);
  EXPECT_EQ(jb["trickbench"]["settings"]["process"], 2);
  EXPECT_TRUE(ja["trickbench"]["reproducibility"]["checked"].get<bool>());
  EXPECT_FALSE(jb["trickbench"]["reproducibility"]["checked"].get<bool>());
  EXPECT_EQ(jb["trickbench"]["reproducibility"]["detail"], "checked by process 1 of this run");
  // The export prints the rounds: one entry per round and variant.
  int iterations = 0;
  const json gb = Load(dir + "/a.gbench.json");
  for (const auto& e : gb["benchmarks"]) {
    iterations += e["run_type"] == "iteration";
  }
  EXPECT_EQ(iterations, 12);
  EXPECT_EQ(ja["context"]["thread_policy"],
            std::thread::hardware_concurrency() <= 4
                ? "default: 1 thread on a machine with <= 4 hardware threads (" +
                      std::to_string(std::thread::hardware_concurrency()) + " here)"
                : "default: half the hardware threads (" +
                      std::to_string(std::thread::hardware_concurrency()) + " here)");
}

TEST(TrickBinary, ALaterProcessTimesTheIterationsOfProcess1) {
  const std::string dir = ScratchDir("iterations_from");
  const std::string cmd = g_tricks["busy"] + " --rounds=2";
  ASSERT_EQ(Exec(cmd + " --min_time=0.002 --out=" + dir + "/p1.json --process=1").exit_code, 0);
  // A min_time 50 times longer would calibrate other counts; the file's are used.
  const Proc p2 = Exec(cmd + " --min_time=0.1 --out=" + dir + "/p2.json --process=2" +
                       " --iterations_from=" + dir + "/p1.json");
  ASSERT_EQ(p2.exit_code, 0) << p2.output;
  const json j1 = Load(dir + "/p1.json"), j2 = Load(dir + "/p2.json");
  EXPECT_EQ(j2["trickbench"]["rounds"][0]["iterations"],
            j1["trickbench"]["rounds"][0]["iterations"]);
  for (const auto& n : j2["trickbench"]["rounds"][0]["samples"]["iterations"]) {
    EXPECT_TRUE(n == j1["trickbench"]["rounds"][0]["iterations"][0] ||
                n == j1["trickbench"]["rounds"][0]["iterations"][1]);
  }
  EXPECT_EQ(j2["trickbench"]["settings"]["iterations_from"], dir + "/p1.json");
  EXPECT_FALSE(j1["trickbench"]["settings"].contains("iterations_from"));
  // Calibrated counts are powers of two, so runs a few percent apart agree.
  for (const auto& n : j1["trickbench"]["rounds"][0]["iterations"]) {
    const int64_t c = n.get<int64_t>();
    EXPECT_EQ(c & (c - 1), 0) << c;
  }

  // Files that do not fit: refused before anything runs, exit 2, nothing written.
  ASSERT_EQ(
      Exec(g_tricks["noop"] + " --min_time=0.001 --rounds=1 --out=" + dir + "/noop.json").exit_code,
      0);
  trickbench::test_files::Write(dir + "/broken.json", "{");
  const std::map<std::string, std::string> bad = {
      {dir + "/none.json", "none.json"},
      {dir + "/broken.json", "broken.json"},
      {dir + "/noop.json", "a result of noop, not of busy"}};
  for (const auto& [file, says] : bad) {
    const Proc p = Exec(cmd + " --out=" + dir + "/bad.json --iterations_from=" + file);
    EXPECT_EQ(p.exit_code, 2) << file << ": " << p.output;
    EXPECT_NE(p.output.find("--iterations_from"), std::string::npos) << p.output;
    EXPECT_NE(p.output.find(says), std::string::npos) << p.output;
    EXPECT_FALSE(fs::exists(dir + "/bad.json")) << file;
  }
}

TEST(TrickBinary, APlantedSlowdownShowsAsItsFactor) {
  const std::string dir = ScratchDir("plant");
  // 50 ms samples: a busy-wait preempted past its end overshoots by a time slice (a few
  // ms), which at 5 ms samples moved the median ratio 20 % when the suite ran 4 tests at
  // once on 2 cores.
  const std::string cmd = g_tricks["busy"] + " --min_time=0.05 --rounds=9";
  const Proc none = Exec(cmd + " --out=" + dir + "/none.json");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  const Proc planted = Exec(cmd + " --out=" + dir + "/planted.json --plant_slowdown=optimized:1.5");
  ASSERT_EQ(planted.exit_code, 0) << planted.output;
  const json jn = Load(dir + "/none.json"), jp = Load(dir + "/planted.json");
  EXPECT_EQ(jp["trickbench"]["settings"]["plant"],
            json({{"variant", "optimized"}, {"factor", 1.5}}));
  EXPECT_FALSE(jn["trickbench"]["settings"].contains("plant"));
  const double same = MedianRatio(jn["trickbench"]["rounds"][0]);
  const double slowed = MedianRatio(jp["trickbench"]["rounds"][0]);
  EXPECT_GT(same, 0.85);
  EXPECT_LT(same, 1.15);
  // baseline / optimized: the optimized variant is 1.5x slower, so about 1/1.5.
  EXPECT_GT(slowed, 1 / 1.5 * 0.85) << "planted ratio " << slowed;
  EXPECT_LT(slowed, 1 / 1.5 * 1.15) << "planted ratio " << slowed;
  for (const char* bad : {"optimized", "optimized:0.5", "optimized:x", "nosuch:1.2"}) {
    const Proc p = Exec(cmd + " --out=" + dir + "/bad.json --plant_slowdown=" + bad);
    EXPECT_EQ(p.exit_code, 2) << bad << ": " << p.output;
    EXPECT_NE(p.output.find("--plant_slowdown"), std::string::npos) << p.output;
  }
  EXPECT_EQ(FileNames(dir), (std::vector<std::string>{"none.gbench.json", "none.json",
                                                      "planted.gbench.json", "planted.json"}));
}

TEST(TrickBinary, WrongAnswerIsInvalidUntimedExit3) {
  const std::string dir = ScratchDir("wrong");
  const Proc p = Exec(g_tricks["wrong_answer"] + " --out=" + dir + "/w.json --min_time=0.001");
  EXPECT_EQ(p.exit_code, 3) << p.output;
  const json j = Load(dir + "/w.json");
  EXPECT_EQ(j["trickbench"]["status"], "invalid");
  const std::string reason = j["trickbench"]["reason"];
  EXPECT_NE(reason.find("optimized differs from baseline"), std::string::npos) << reason;
  EXPECT_FALSE(j["trickbench"].contains("rounds"));
  EXPECT_TRUE(Load(dir + "/w.gbench.json")["benchmarks"].empty());
  EXPECT_FALSE(j["trickbench"]["checks"][0]["variants"][1]["equivalent"].get<bool>());
}

TEST(TrickBinary, InactiveTrickIsInvalidWithItsReason) {
  const std::string dir = ScratchDir("inactive");
  const Proc p = Exec(g_tricks["inactive"] + " --out=" + dir + "/i.json --min_time=0.001");
  EXPECT_EQ(p.exit_code, 3) << p.output;
  const json j = Load(dir + "/i.json");
  EXPECT_EQ(j["trickbench"]["reason"],
            "optimized not in effect: the optimization was silently ignored");
}

TEST(TrickBinary, NeedsCudaIsSkippedWithReasonHere) {
  const std::string dir = ScratchDir("cuda_only");
  const Proc p = Exec(g_tricks["cuda_only"] + " --out=" + dir + "/c.json");
  const json j = Load(dir + "/c.json");
  if (j["context"]["cuda_available"] == "true") GTEST_SKIP() << "CUDA present";
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(j["trickbench"]["status"], "skipped");
  const std::string reason = j["trickbench"]["reason"];
  EXPECT_NE(reason.find("needs CUDA (device-side test workload)"), std::string::npos) << reason;
  EXPECT_FALSE(j["trickbench"].contains("rounds"));
  EXPECT_TRUE(Load(dir + "/c.gbench.json")["benchmarks"].empty());
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    trickbench::test_files::ArgValue(a, "--gpu_selftest", &g_gpu_selftest);
    std::string path;
    if (trickbench::test_files::ArgValue(a, "--trick", &path)) {
      g_tricks[std::filesystem::path(path).filename().string()] = path;
    }
  }
  return RUN_ALL_TESTS();
}
