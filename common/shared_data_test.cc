// SharedDataDir writes a data set once and hands the same folder to every later caller;
// a writer that fails leaves nothing; run_all's RunDataDir names the folder to children
// and removes it.
#include "common/shared_data.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/test_files.h"

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

// A trick run alone (no run_all folder) makes its own, and removes it however it ends:
// a trick process ends with std::quick_exit (harness/end_process.h), which runs no
// static destructor.
TEST(SharedDataDir, ATrickRunAloneRemovesItsFolderAtAQuickOrANormalExit) {
  for (const bool quick : {true, false}) {
    const std::string root = test_files::ScratchDir(quick ? "alone_quick" : "alone_exit");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      unsetenv(kSharedDataEnv);
      setenv("TRICKBENCH_DATA_DIR", root.c_str(), 1);
      const std::string set =
          SharedDataDir("x", [](const std::string& f) { std::ofstream(f + "/y") << "z"; });
      if (!fs::exists(set + "/y")) _exit(3);
      if (quick) std::quick_exit(0);
      std::exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_TRUE(fs::is_empty(root))
        << (quick ? "quick_exit" : "exit") << " left " << fs::directory_iterator(root)->path();
  }
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
