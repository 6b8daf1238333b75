// SharedDataDir writes a data set once and hands the same folder to every later caller;
// a writer that fails leaves nothing; run_all's RunDataDir names the folder to children
// and removes it.
#include "common/shared_data.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace trickbench {
namespace {

namespace fs = std::filesystem;

void WriteOne(const std::string& folder, int* calls) {
  ++*calls;
  std::ofstream(folder + "/data.bin") << "payload";
}

TEST(SharedDataDir, WritesOnceThenOnlyHandsOutTheFolder) {
  RunDataDir run;  // a clean root for this test
  int calls = 0;
  const std::string a = SharedDataDir("set-v1", [&](const std::string& f) { WriteOne(f, &calls); });
  const std::string b = SharedDataDir("set-v1", [&](const std::string& f) { WriteOne(f, &calls); });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a, b);
  EXPECT_EQ(fs::path(a).parent_path(), fs::path(run.path()));
  EXPECT_TRUE(fs::exists(a + "/data.bin"));
  SharedDataDir("set-v2", [&](const std::string& f) { WriteOne(f, &calls); });
  EXPECT_EQ(calls, 2) << "another key is another data set";
}

TEST(SharedDataDir, AWriterThatThrowsLeavesNothingAndTheNextCallWrites) {
  RunDataDir run;
  EXPECT_THROW(SharedDataDir("broken",
                             [](const std::string& f) {
                               std::ofstream(f + "/half") << "x";
                               throw std::runtime_error("disk full");
                             }),
               std::runtime_error);
  EXPECT_TRUE(fs::is_empty(run.path())) << "a half-written set stayed behind";
  int calls = 0;
  SharedDataDir("broken", [&](const std::string& f) { WriteOne(f, &calls); });
  EXPECT_EQ(calls, 1);
}

TEST(SharedDataDir, RefusesKeysThatAreNotPlainFileNames) {
  RunDataDir run;
  for (const char* key : {"", "../escape", "a/b", ".hidden", "sp ace"}) {
    EXPECT_THROW(SharedDataDir(key, [](const std::string&) {}), std::invalid_argument) << key;
  }
}

TEST(RunDataDir, NamesItsFolderToChildrenAndRemovesIt) {
  std::string path;
  {
    RunDataDir run;
    path = run.path();
    ASSERT_NE(std::getenv(kSharedDataEnv), nullptr);
    EXPECT_EQ(std::string(std::getenv(kSharedDataEnv)), path);
    SharedDataDir("x", [](const std::string& f) { std::ofstream(f + "/y") << "z"; });
    EXPECT_TRUE(fs::exists(path + "/x/y"));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(std::getenv(kSharedDataEnv), nullptr);
}

TEST(SharedDataDir, AVariableNamingNoFolderIsAnErrorNamingIt) {
  setenv(kSharedDataEnv, "/nonexistent/trickbench-run-data", 1);
  try {
    SharedDataDir("x", [](const std::string&) {});
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("TRICKBENCH_SHARED_DATA_DIR=/nonexistent"),
              std::string::npos)
        << e.what();
  }
  unsetenv(kSharedDataEnv);
}

}  // namespace
}  // namespace trickbench
