// Scratch files for tests: a fresh folder under Bazel's TEST_TMPDIR, a whole file read
// or written in one call, and the paths Bazel passes a test's main() as --flag=PATH.
// Tests in every package made their own copies of these; this is the one, kept in
// common/ so that any test may use it.
//
//   const std::string dir = test_files::ScratchDir("bad_flags");  // exists, empty
//   test_files::Write(dir + "/index.json", "{");
//   EXPECT_EQ(test_files::Read(dir + "/index.json"), "{");
//
//   // BUILD: args = ["--catalog=$(rootpath :catalog)"]
//   int main(int argc, char** argv) {
//     testing::InitGoogleTest(&argc, argv);
//     for (int i = 1; i < argc; ++i) test_files::ArgValue(argv[i], "--catalog", &g_catalog);
//     return RUN_ALL_TESTS();
//   }
#pragma once

#include <string>
#include <vector>

namespace trickbench {
namespace test_files {

// TEST_TMPDIR, or /tmp outside `bazel test`: Bazel empties it before each test, so what a
// test leaves there never leaks into the next run.
std::string TmpDir();

// TmpDir()/name, emptied and created: a name used before (by an earlier test in the
// binary, or a run outside Bazel that left it in /tmp) starts from nothing.
std::string ScratchDir(const std::string& name);

// TmpDir()/name with nothing there, not created: for what the code under test must
// create itself (an output folder it refuses to reuse, a file).
std::string FreshPath(const std::string& name);

// The whole file; "" when it cannot be read, so a missing file shows as a mismatch in
// the assertion that reads it (several tests read files that may rightly be absent).
std::string Read(const std::string& path);

// As Read, and a test failure naming the path when the file cannot be read: for files
// that must exist, where two missing files would otherwise compare equal.
std::string ReadExisting(const std::string& path);

// The names in `dir`, sorted: a test that says which files a folder holds catches a
// temporary or partial file left behind.
std::vector<std::string> FileNames(const std::string& dir);

// Replaces the file with `text`, bytes as given; a test failure when it cannot.
void Write(const std::string& path, const std::string& text);

// When `arg` is `flag`=VALUE (flag with its dashes: "--trick"), sets *value and returns
// true; otherwise false. Spares every test main() counting the flag's length for substr.
bool ArgValue(const std::string& arg, const std::string& flag, std::string* value);

}  // namespace test_files
}  // namespace trickbench
