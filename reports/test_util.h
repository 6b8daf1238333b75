// Helpers for the reports tests: fixture paths, reading files, a scratch folder, a copy of
// the fixture run, and a check that HTML is well formed.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/test_files.h"

namespace trickbench {
namespace reports {
namespace testing {

// Test data lives in the runfiles tree, relative to the test's working directory.
inline std::string Fixture(const std::string& name) { return "reports/testdata/" + name; }

// The reports tests' names for common/test_files.h's Read, Write and ScratchDir, which
// hold the one copy of each.
inline std::string Slurp(const std::string& path) { return test_files::Read(path); }
inline void Spit(const std::string& path, const std::string& text) {
  test_files::Write(path, text);
}
using test_files::ScratchDir;

// A scratch copy of the fixture run (testdata/run), for a test to change: report_test,
// load_test and report_cli_test each break it in their own way.
inline std::string CopyOfRun(const std::string& name) {
  namespace fs = std::filesystem;
  const std::string dir = ScratchDir(name);
  for (const auto& e : fs::directory_iterator(Fixture("run"))) {
    fs::copy_file(e.path(), fs::path(dir) / e.path().filename());
  }
  return dir;
}

// "" when the tags of `html` nest and close (void elements excepted): what a strict
// parser needs. Else the first problem.
inline std::string WellFormedError(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "col"};
  std::vector<std::string> stack;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    const size_t end = html.find('>', i);
    if (end == std::string::npos) return "unclosed '<' at " + std::to_string(i);
    std::string tag = html.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty() || tag[0] == '!') continue;
    const bool closing = tag[0] == '/';
    const bool self_closing = tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" /\t\n"));
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> closes " + (stack.empty() ? "nothing" : "<" + stack.back() + ">");
      }
      stack.pop_back();
    } else if (!self_closing && !kVoid.count(name)) {
      stack.push_back(name);
    }
  }
  return stack.empty() ? "" : "<" + stack.back() + "> never closed";
}

}  // namespace testing
}  // namespace reports
}  // namespace trickbench
