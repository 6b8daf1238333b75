// Helpers for the reports tests: fixture paths, reading files, a scratch folder.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace trickbench {
namespace reports {
namespace testing {

// Test data lives in the runfiles tree, relative to the test's working directory.
inline std::string Fixture(const std::string& name) { return "reports/testdata/" + name; }

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void Spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh, empty folder under TEST_TMPDIR.
inline std::string ScratchDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const auto dir = std::filesystem::path(tmp ? tmp : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace testing
}  // namespace reports
}  // namespace trickbench
