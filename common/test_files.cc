#include "common/test_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/atomic_file.h"

namespace trickbench {
namespace test_files {

namespace fs = std::filesystem;

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d ? d : "/tmp";
}

std::string ScratchDir(const std::string& name) {
  const std::string dir = FreshPath(name);
  fs::create_directories(dir);
  return dir;
}

std::string FreshPath(const std::string& name) {
  const std::string path = TmpDir() + "/" + name;
  fs::remove_all(path);
  return path;
}

std::string Read(const std::string& path) { return ReadFile(path, nullptr); }

std::string ReadExisting(const std::string& path) {
  std::string error;
  std::string text = ReadFile(path, &error);
  if (!error.empty()) ADD_FAILURE() << error;  // "cannot read PATH: why"
  return text;
}

std::vector<std::string> FileNames(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

bool ArgValue(const std::string& arg, const std::string& flag, std::string* value) {
  const std::string prefix = flag + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

}  // namespace test_files
}  // namespace trickbench
