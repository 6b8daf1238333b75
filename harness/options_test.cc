#include "harness/options.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace trickbench {
namespace {

// Parses `args`, expecting a refusal; returns the message.
std::string Refusal(const std::vector<std::string>& args) {
  RunOptions o;
  std::string error;
  EXPECT_FALSE(ParseRunOptions(args, &o, &error)) << "accepted: " << args.front();
  EXPECT_EQ(o.threads, 0) << "a refused command line stored a value";
  return error;
}

TEST(ParseRunOptions, Defaults) {
  RunOptions o;
  std::string error;
  ASSERT_TRUE(ParseRunOptions({}, &o, &error)) << error;
  EXPECT_EQ(o.rounds, kDefaultRounds);
  EXPECT_EQ(o.min_time, kDefaultMinTime);
  EXPECT_EQ(o.process, 0);
  EXPECT_EQ(o.plant_slowdown, "");
  EXPECT_EQ(o.threads, 0);
  EXPECT_EQ(o.device, "auto");
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.seed, 0u);
  EXPECT_FALSE(o.help || o.list || o.fingerprint || o.check_only);
}

TEST(ParseRunOptions, ReadsEveryFlag) {
  RunOptions o;
  std::string error;
  ASSERT_TRUE(ParseRunOptions({"--out=/tmp/x.json", "--threads=3", "--rounds=15", "--min_time=0.25",
                               "--device=cpu", "--seed=42", "--check_only", "--process=3",
                               "--plant_slowdown=all:1.2", "--list", "--fingerprint", "--help"},
                              &o, &error))
      << error;
  EXPECT_EQ(o.out, "/tmp/x.json");
  EXPECT_EQ(o.threads, 3);
  EXPECT_EQ(o.rounds, 15);
  EXPECT_EQ(o.process, 3);
  EXPECT_EQ(o.plant_slowdown, "all:1.2");
  EXPECT_DOUBLE_EQ(o.min_time, 0.25);
  EXPECT_EQ(o.device, "cpu");
  EXPECT_EQ(o.seed, 42u);
  EXPECT_TRUE(o.check_only && o.list && o.fingerprint && o.help);
  RunOptions synonym;
  ASSERT_TRUE(ParseRunOptions({"--repetitions=7"}, &synonym, &error)) << error;
  EXPECT_EQ(synonym.rounds, 7);
}

// `bazel run` starts the binary in its runfiles: a relative --out is the caller's folder.
TEST(ParseRunOptions, UnderBazelRunARelativeOutIsTheCallersFolder) {
  setenv("BUILD_WORKING_DIRECTORY", "/home/me/work", 1);
  RunOptions o;
  std::string error;
  ASSERT_TRUE(ParseRunOptions({"--out=runs/mine.json"}, &o, &error)) << error;
  EXPECT_EQ(o.out, "/home/me/work/runs/mine.json");
  ASSERT_TRUE(ParseRunOptions({"--out=/tmp/x.json"}, &o, &error)) << error;
  EXPECT_EQ(o.out, "/tmp/x.json");
  RunOptions fresh;
  ASSERT_TRUE(ParseRunOptions({}, &fresh, &error)) << error;
  EXPECT_EQ(fresh.out, "") << "no --out stays the default";
  unsetenv("BUILD_WORKING_DIRECTORY");
}

TEST(DefaultThreads, LeavesHeadroomOnSmallMachines) {
  std::string rule;
  EXPECT_EQ(DefaultThreads(2, &rule), 1);
  EXPECT_EQ(rule, "default: 1 thread on a machine with <= 4 hardware threads (2 here)");
  EXPECT_EQ(DefaultThreads(4, &rule), 1);
  EXPECT_EQ(DefaultThreads(16, &rule), 8);
  EXPECT_EQ(rule, "default: half the hardware threads (16 here)");
  EXPECT_EQ(DefaultThreads(0, &rule), 1);  // unknown: std::thread::hardware_concurrency() == 0
}

TEST(ParseRunOptions, RejectsMalformedValuesNamingTheFlag) {
  EXPECT_EQ(Refusal({"--threads=2.5"}),
            "bad value for --threads: '2.5' (expected an integer from 1 to 1024)");
  EXPECT_EQ(Refusal({"--threads"}), "--threads needs a value (--threads=...)");
  EXPECT_NE(Refusal({"--repetitions=-3"}).find("--repetitions: '-3'"), std::string::npos);
  EXPECT_NE(Refusal({"--seed=99999999999999999999999"}).find("--seed"), std::string::npos);
  EXPECT_NE(Refusal({"--min_time=inf"}).find("--min_time: 'inf'"), std::string::npos);
  EXPECT_EQ(Refusal({"--min_time=0"}),
            "bad value for --min_time: '0' (expected seconds, > 0 and <= 3600)");
  EXPECT_EQ(Refusal({"--device=gpu"}),
            "bad value for --device: 'gpu' (expected auto, cpu or cuda)");
  EXPECT_NE(Refusal({"--benchmark_filter=x"}).find("use --out, --rounds or --min_time"),
            std::string::npos);
  EXPECT_NE(Refusal({"--benchmark_repetitions=3"}).find("paired rounds"), std::string::npos);
  EXPECT_NE(Refusal({"--process=0"}).find("bad value for --process"), std::string::npos);
  EXPECT_EQ(Refusal({"--fingerprint=1"}), "--fingerprint takes no value");
  EXPECT_EQ(Refusal({"--out="}), "--out is empty");
  EXPECT_EQ(Refusal({"--bogus"}), "unknown flag --bogus (see --help)");
  EXPECT_NE(Refusal({"-x"}).find("unexpected argument '-x'"), std::string::npos);
  EXPECT_NE(Refusal({"positional"}).find("unexpected argument 'positional'"), std::string::npos);
  // Nothing is stored from a refused line, even flags before the bad one.
  EXPECT_EQ(Refusal({"--threads=4", "--bogus"}), "unknown flag --bogus (see --help)");
}

TEST(RunUsage, ListsEveryFlag) {
  const std::string usage = RunUsage();
  for (const char* flag :
       {"--out=", "--threads=N", "--rounds=N", "--repetitions=N", "--min_time=SECONDS",
        "--process=N", "--plant_slowdown=", "--device=", "--seed=N", "--check_only",
        "--fingerprint", "--list", "--help", "Exit status"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag << " not in:\n" << usage;
  }
}

}  // namespace
}  // namespace trickbench
