#include "common/output_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

namespace trickbench {
namespace {

// Each test sets both variables it depends on, so their order does not matter.
void Set(const char* name, const char* value) {
  if (value) {
    setenv(name, value, 1);
  } else {
    unsetenv(name);
  }
}

TEST(RunsRoot, EnvironmentVariableWins) {
  Set(kRunsDirEnv, "/data/tb-runs");
  Set("BUILD_WORKSPACE_DIRECTORY", "/src/trickbench");
  EXPECT_EQ(RunsRoot(), "/data/tb-runs");
}

TEST(RunsRoot, UnderBazelRunTheWorkspacesRunsFolder) {
  Set(kRunsDirEnv, nullptr);
  Set("BUILD_WORKSPACE_DIRECTORY", "/src/trickbench");
  EXPECT_EQ(RunsRoot(), "/src/trickbench/runs");
  // An empty variable counts as unset: `TRICKBENCH_RUNS_DIR= bazel run ...` keeps the default.
  Set(kRunsDirEnv, "");
  EXPECT_EQ(RunsRoot(), "/src/trickbench/runs");
}

TEST(RunsRoot, OtherwiseRunsInTheWorkingDirectory) {
  Set(kRunsDirEnv, nullptr);
  Set("BUILD_WORKSPACE_DIRECTORY", nullptr);
  EXPECT_EQ(RunsRoot(), "runs");
}

TEST(UtcStamp, DefaultFormatNamesAFolder) {
  EXPECT_TRUE(std::regex_match(UtcStamp(), std::regex(R"(\d{8}-\d{6})"))) << UtcStamp();
  EXPECT_TRUE(
      std::regex_match(UtcStamp("%FT%TZ"), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

}  // namespace
}  // namespace trickbench
