// The GPU path's command-line flags. Built in both configurations: each checks the
// behaviour of its own build (a CPU build refuses --flush_l2 with a reason, a CUDA
// build accepts it), so neither can silently change.
#include <gtest/gtest.h>

#include "harness/runner.h"

namespace trickbench {
namespace {

bool Parse(const std::vector<std::string>& args, RunOptions* opts, std::string* error) {
  return ParseRunOptions(args, opts, error);
}

TEST(FlushL2Flag, OffByDefault) {
  RunOptions opts;
  std::string error;
  ASSERT_TRUE(Parse({"--repetitions=3"}, &opts, &error)) << error;
  EXPECT_FALSE(opts.flush_l2);
}

TEST(FlushL2Flag, TakesNoValue) {
  RunOptions opts;
  std::string error;
  EXPECT_FALSE(Parse({"--flush_l2=1"}, &opts, &error));
  EXPECT_NE(error.find("--flush_l2"), std::string::npos) << error;
  EXPECT_FALSE(opts.flush_l2);
}

#ifdef TRICKBENCH_CUDA
TEST(FlushL2Flag, AcceptedByACudaBuild) {
  RunOptions opts;
  std::string error;
  ASSERT_TRUE(Parse({"--flush_l2", "--min_time=0.01"}, &opts, &error)) << error;
  EXPECT_TRUE(opts.flush_l2);
  EXPECT_DOUBLE_EQ(opts.min_time, 0.01);
}
#else
TEST(FlushL2Flag, RefusedByACpuBuildWithTheReason) {
  RunOptions opts;
  std::string error;
  EXPECT_FALSE(Parse({"--flush_l2"}, &opts, &error));
  EXPECT_NE(error.find("needs a CUDA build"), std::string::npos) << error;
  EXPECT_FALSE(opts.flush_l2);
}
#endif

TEST(FlushL2Flag, IsNotABenchmarkPassThrough) {
  // A typo must not slip through to Google Benchmark as if it were one of its flags.
  RunOptions opts;
  std::string error;
  EXPECT_FALSE(Parse({"--flush_l3"}, &opts, &error));
  EXPECT_NE(error.find("unknown flag --flush_l3"), std::string::npos) << error;
  EXPECT_TRUE(opts.benchmark_flags.empty());
}

}  // namespace
}  // namespace trickbench
