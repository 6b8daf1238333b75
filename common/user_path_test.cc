#include "common/user_path.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace trickbench {
namespace {

void Set(const char* value) {
  if (value) {
    setenv("BUILD_WORKING_DIRECTORY", value, 1);
  } else {
    unsetenv("BUILD_WORKING_DIRECTORY");
  }
}

TEST(UserPath, UnderBazelRunARelativePathIsTheCallersFolder) {
  Set("/home/me/work");
  EXPECT_EQ(UserPath("runs/today"), "/home/me/work/runs/today");
  EXPECT_EQ(UserPath("./a/../b.json"), "/home/me/work/b.json");
  EXPECT_EQ(UserPath("../up"), "/home/me/up");
}

TEST(UserPath, AbsoluteAndEmptyPathsAreLeftAlone) {
  Set("/home/me/work");
  EXPECT_EQ(UserPath("/tmp/x"), "/tmp/x");
  EXPECT_EQ(UserPath(""), "");  // "not given" stays "not given"
}

TEST(UserPath, OutsideBazelRunAPathIsAsGiven) {
  Set(nullptr);
  EXPECT_EQ(UserPath("runs/today"), "runs/today");
  Set("");
  EXPECT_EQ(UserPath("runs/today"), "runs/today");
}

}  // namespace
}  // namespace trickbench
