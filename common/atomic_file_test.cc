#include "common/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/test_files.h"

namespace trickbench {
namespace {

namespace fs = std::filesystem;

using test_files::ScratchDir;

TEST(WriteFileAtomically, WritesAndReplacesWholeFiles) {
  const std::string d = ScratchDir("atomic");
  std::string error;
  ASSERT_TRUE(WriteFileAtomically(d + "/a.json", "first", &error)) << error;
  ASSERT_TRUE(WriteFileAtomically(d + "/a.json", "second", &error)) << error;
  EXPECT_EQ(ReadFile(d + "/a.json", &error), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
}

TEST(WriteFileAtomically, MissingFolderFailsWithAMessageAndLeavesNothing) {
  std::string error;
  EXPECT_FALSE(WriteFileAtomically("/nonexistent-trickbench/a.json", "x", &error));
  EXPECT_NE(error.find("cannot create a file in /nonexistent-trickbench"), std::string::npos)
      << error;
  EXPECT_FALSE(WriteFileAtomically("", "x", &error));
  EXPECT_EQ(error, "empty output path");
}

TEST(CheckWritable, AcceptsWritableFolderRejectsOthers) {
  const std::string d = ScratchDir("writable");
  std::string error;
  EXPECT_TRUE(CheckWritable(d + "/x.json", &error)) << error;
  EXPECT_TRUE(fs::is_empty(d)) << "the probe file was left behind";
  EXPECT_FALSE(CheckWritable(d, &error));
  EXPECT_NE(error.find("is a directory"), std::string::npos);
  EXPECT_FALSE(CheckWritable("/proc/x.json", &error));
  EXPECT_NE(error.find("cannot write into /proc"), std::string::npos) << error;
}

TEST(ReadFile, MissingFileIsAnError) {
  std::string error;
  EXPECT_EQ(ReadFile("/nonexistent-trickbench/f", &error), "");
  EXPECT_NE(error.find("cannot read /nonexistent-trickbench/f"), std::string::npos);
}

}  // namespace
}  // namespace trickbench
