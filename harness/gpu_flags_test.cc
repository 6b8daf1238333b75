// The GPU path's command-line flags. Built in both configurations: each checks the
// behaviour of its own build (a CPU build refuses --flush_l2 with a reason, a CUDA
// build, where the CUDA timing backend registers the flag, accepts it), so neither can
// silently change.
#include <gtest/gtest.h>

#include "harness/options.h"
#include "harness/timing.h"

namespace trickbench {
namespace {

bool CudaBackendLinked() { return TimingBackends::Find("cuda_events") != nullptr; }

bool FlushL2(const RunOptions& opts) {
  const auto it = opts.backend_switches.find("flush_l2");
  return it != opts.backend_switches.end() && it->second;
}

TEST(FlushL2Flag, OffByDefault) {
  RunOptions opts;
  std::string error;
  ASSERT_TRUE(ParseRunOptions({"--repetitions=3"}, &opts, &error)) << error;
  EXPECT_FALSE(FlushL2(opts));
}

TEST(FlushL2Flag, TakesNoValue) {
  RunOptions opts;
  std::string error;
  EXPECT_FALSE(ParseRunOptions({"--flush_l2=1"}, &opts, &error));
  EXPECT_EQ(error, "--flush_l2 takes no value");
  EXPECT_FALSE(FlushL2(opts));
}

TEST(FlushL2Flag, AcceptedExactlyWhenTheCudaBackendIsLinked) {
  RunOptions opts;
  std::string error;
  const bool parsed = ParseRunOptions({"--flush_l2", "--min_time=0.01"}, &opts, &error);
  if (CudaBackendLinked()) {
    ASSERT_TRUE(parsed) << error;
    EXPECT_TRUE(FlushL2(opts));
    EXPECT_DOUBLE_EQ(opts.min_time, 0.01);
  } else {
    EXPECT_FALSE(parsed);
    EXPECT_EQ(error,
              "--flush_l2 needs a CUDA build (Bazel --config=cuda, or CMake with a CUDA "
              "LibTorch); this binary has no CUDA support");
    EXPECT_FALSE(FlushL2(opts));
    EXPECT_DOUBLE_EQ(opts.min_time, kDefaultMinTime);  // nothing stored from a refused line
  }
}

TEST(FlushL2Flag, ATypoIsUnknown) {
  RunOptions opts;
  std::string error;
  EXPECT_FALSE(ParseRunOptions({"--flush_l3"}, &opts, &error));
  EXPECT_NE(error.find("unknown flag --flush_l3"), std::string::npos) << error;
}

TEST(FlushL2Flag, HelpSaysWhereItWorks) {
  const std::string usage = RunUsage();
  EXPECT_NE(usage.find("--flush_l2"), std::string::npos) << usage;
  if (CudaBackendLinked()) {
    EXPECT_NE(usage.find("CUDA events"), std::string::npos) << usage;
  } else {
    EXPECT_NE(usage.find("not in this binary"), std::string::npos) << usage;
  }
}

}  // namespace
}  // namespace trickbench
