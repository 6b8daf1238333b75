#include "common/test_files.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace trickbench {
namespace test_files {
namespace {

namespace fs = std::filesystem;

TEST(ScratchDir, IsEmptiedOnEveryCall) {
  const std::string dir = ScratchDir("scratch");
  EXPECT_EQ(dir, TmpDir() + "/scratch");
  Write(dir + "/left", "x");
  EXPECT_EQ(ScratchDir("scratch"), dir);
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(FreshPath, LeavesNothingThere) {
  const std::string dir = ScratchDir("fresh");
  Write(dir + "/f", "x");
  EXPECT_EQ(FreshPath("fresh"), dir);
  EXPECT_FALSE(fs::exists(dir));
}

TEST(ReadAndWrite, RoundTripWholeFilesByteForByte) {
  const std::string path = ScratchDir("rw") + "/f";
  const std::string text = std::string("a\r\nb\0c", 6);
  Write(path, text);
  EXPECT_EQ(Read(path), text);
  EXPECT_EQ(ReadExisting(path), text);
  Write(path, "short");
  EXPECT_EQ(Read(path), "short");
}

TEST(ReadAndWrite, AMissingFileReadsEmptyAndOnlyReadExistingFails) {
  const std::string path = ScratchDir("missing") + "/none";
  EXPECT_EQ(Read(path), "");
  EXPECT_NONFATAL_FAILURE(ReadExisting(path), "cannot read " + path);
  EXPECT_NONFATAL_FAILURE(Write(path + "/under_a_file_that_is_not_there/x", ""), "cannot write");
}

TEST(FileNames, AreSorted) {
  const std::string dir = ScratchDir("names");
  for (const char* n : {"b", "c", "a"}) Write(dir + "/" + n, "");
  EXPECT_EQ(FileNames(dir), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(ArgValue, TakesOnlyTheNamedFlag) {
  std::string v = "unset";
  EXPECT_TRUE(ArgValue("--trick=a/b=c", "--trick", &v));
  EXPECT_EQ(v, "a/b=c");
  EXPECT_TRUE(ArgValue("--trick=", "--trick", &v));
  EXPECT_EQ(v, "");
  v = "unset";
  EXPECT_FALSE(ArgValue("--tricks=x", "--trick", &v));
  EXPECT_FALSE(ArgValue("--trick", "--trick", &v));
  EXPECT_FALSE(ArgValue("x--trick=y", "--trick", &v));
  EXPECT_EQ(v, "unset");
}

}  // namespace
}  // namespace test_files
}  // namespace trickbench
