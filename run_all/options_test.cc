#include "run_all/options.h"

#include <gtest/gtest.h>

namespace trickbench {
namespace run_all {
namespace {

std::string ErrorOf(const std::vector<std::string>& args) {
  Options o;
  std::string error;
  return ParseOptions(args, &o, &error) ? "" : error;
}

TEST(ParseOptions, BinariesOwnFlagsAndForwardedFlagsInOrder) {
  Options o;
  std::string error;
  ASSERT_TRUE(ParseOptions({"bin/a",         "--threads=2",      "bin/b",
                            "--timeout=60",  "--only=a",         "--benchmark_filter=x",
                            "--check_only",  "--out_dir=/tmp/r", "--seed=3",
                            "--device=cpu",  "--min_time=0.5",   "--repetitions=4",
                            "--flush_l2",    "--skip=b",         "--list",
                            "--processes=3", "--rounds=7",       "--plant_slowdown=all:1.1",
                            "--ab=/o,/n",    "--ab_seed=99"},
                           &o, &error))
      << error;
  EXPECT_EQ(o.binaries, (std::vector<std::string>{"bin/a", "bin/b"}));
  EXPECT_EQ(o.timeout, 60);
  EXPECT_EQ(o.only, (std::vector<std::string>{"a"}));
  EXPECT_EQ(o.skip, (std::vector<std::string>{"b"}));
  EXPECT_EQ(o.out_dir, "/tmp/r");
  EXPECT_TRUE(o.list);
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.processes, 3);
  EXPECT_EQ(o.ab_old_dir, "/o");
  EXPECT_EQ(o.ab_new_dir, "/n");
  EXPECT_TRUE(o.ab());
  EXPECT_EQ(o.ab_seed, 99u);
  EXPECT_EQ(o.forward, (std::vector<std::string>{"--threads=2", "--benchmark_filter=x",
                                                 "--check_only", "--seed=3", "--device=cpu",
                                                 "--min_time=0.5", "--repetitions=4", "--flush_l2",
                                                 "--rounds=7", "--plant_slowdown=all:1.1"}));
}

TEST(ParseOptions, Defaults) {
  Options o;
  std::string error;
  ASSERT_TRUE(ParseOptions({}, &o, &error)) << error;
  EXPECT_EQ(o.timeout, 300);
  EXPECT_EQ(o.out_dir, "");
  EXPECT_TRUE(o.forward.empty());
  EXPECT_TRUE(o.binaries.empty());
  EXPECT_EQ(o.processes, kDefaultProcesses);
  EXPECT_FALSE(o.processes_given);
  EXPECT_TRUE(o.budgeted());  // a time budget by default
  EXPECT_FALSE(o.budget_seconds.has_value());
  EXPECT_FALSE(o.ab());
  EXPECT_FALSE(o.ab_seed.has_value());
}

TEST(ParseOptions, ABudgetOrAFixedCount) {
  Options o;
  std::string error;
  ASSERT_TRUE(ParseOptions({"--budget=120"}, &o, &error)) << error;
  EXPECT_TRUE(o.budgeted());
  EXPECT_EQ(o.budget_seconds, 120);
  ASSERT_TRUE(ParseOptions({"--processes=4"}, &o, &error)) << error;
  EXPECT_FALSE(o.budgeted());
  EXPECT_EQ(o.processes, 4);
  ASSERT_TRUE(ParseOptions({"--ab=/a,/b"}, &o, &error)) << error;
  EXPECT_FALSE(o.budgeted());  // an A/B session pairs a fixed count
  EXPECT_EQ(o.processes, kDefaultProcesses);
  EXPECT_EQ(ErrorOf({"--budget=60", "--processes=3"}),
            "--budget is not for a run with --processes (a fixed count)");
  EXPECT_EQ(ErrorOf({"--ab=/a,/b", "--budget=60"}),
            "--budget is not for a run with --ab (an A/B session pairs a fixed count)");
  EXPECT_EQ(ErrorOf({"--budget=0"}).rfind("bad value for --budget: '0'", 0), 0u)
      << ErrorOf({"--budget=0"});
}

TEST(ParseOptions, BadCommandLinesAreOneLineErrors) {
  EXPECT_EQ(ErrorOf({"--timeout=soon"}),
            "bad value for --timeout: 'soon' (expected seconds, > 0 and <= 86400)");
  EXPECT_EQ(ErrorOf({"--timeout=0"}),
            "bad value for --timeout: '0' (expected seconds, > 0 and <= 86400)");
  EXPECT_EQ(ErrorOf({"--frobnicate"}), "unknown flag --frobnicate (see --help)");
  EXPECT_EQ(ErrorOf({"--out_dir="}), "--out_dir is empty");
  EXPECT_EQ(ErrorOf({"--only="}), "--only is empty");
  EXPECT_EQ(ErrorOf({"--threads"}), "--threads needs a value (--threads=...)");
  EXPECT_EQ(ErrorOf({"--list=yes"}), "--list takes no value");
  EXPECT_EQ(ErrorOf({"--timeout=5", "--timeout=6"}), "--timeout is given twice");
  EXPECT_EQ(ErrorOf({"--processes=0"}).rfind("bad value for --processes: '0'", 0), 0u)
      << ErrorOf({"--processes=0"});
  EXPECT_EQ(ErrorOf({"--ab=/only-one"}),
            "bad value for --ab: '/only-one' (expected OLD_BIN_DIR,NEW_BIN_DIR)");
  EXPECT_EQ(ErrorOf({"--ab=/a,"}), "bad value for --ab: '/a,' (expected OLD_BIN_DIR,NEW_BIN_DIR)");
  EXPECT_EQ(ErrorOf({"--ab=/a,/b,/c"}),
            "bad value for --ab: '/a,/b,/c' (expected OLD_BIN_DIR,NEW_BIN_DIR)");
  EXPECT_EQ(ErrorOf({"--ab_seed=5"}), "--ab_seed needs --ab");
  EXPECT_EQ(ErrorOf({"--ab=/a,/b", "--ab_seed=9223372036854775808"}),
            "bad value for --ab_seed: '9223372036854775808' (at most 2^63-1)");
  EXPECT_EQ(ErrorOf({"--process=2"}), "unknown flag --process (see --help)");
  EXPECT_EQ(ErrorOf({"--out=x.json"}), "unknown flag --out (see --help)");
  // A failed parse leaves the caller's options alone.
  Options o;
  o.timeout = 42;
  std::string error;
  EXPECT_FALSE(ParseOptions({"--timeout=5", "--bad"}, &o, &error));
  EXPECT_EQ(o.timeout, 42);
}

TEST(Usage, ListsEveryFlagAndTheSignalBehaviour) {
  const std::string u = Usage();
  for (const char* flag :
       {"--out_dir=",     "--timeout=",   "--only=",        "--skip=",       "--list",
        "--help",         "--min_time=",  "--repetitions=", "--threads=",    "--seed=",
        "--device=",      "--check_only", "--flush_l2",     "--benchmark_*", "--processes=",
        "--budget=",      "--ab=",        "--ab_seed=",     "--rounds=",     "--plant_slowdown=",
        "<id>.p<k>.json", "ABBA",         "round-robin"}) {
    EXPECT_NE(u.find(flag), std::string::npos) << flag;
  }
  EXPECT_NE(u.find("128+signal"), std::string::npos);
  EXPECT_NE(u.find("interrupted"), std::string::npos);
}

}  // namespace
}  // namespace run_all
}  // namespace trickbench
