#include "run_all/cli_test_util.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace trickbench {
namespace results {
void PrintTo(RunOutcome o, std::ostream* os) { *os << Name(o); }
}  // namespace results

namespace run_all_test {

namespace fs = std::filesystem;

std::map<std::string, std::string> g_tricks;
std::string g_run_all;

Proc Exec(const std::string& cmd) { return subprocess::RunCommand(cmd); }

std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(d ? d : "/tmp") + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, RunOutcome> Outcomes(const results::RunIndex& index) {
  std::map<std::string, RunOutcome> out;
  for (const auto& t : index.tricks) out[t.id] = t.outcome;
  return out;
}

std::vector<std::string> Processes(const results::RunIndex& index) {
  std::vector<std::string> out;
  for (const auto& t : index.tricks) out.push_back(t.id + ".p" + std::to_string(t.process));
  return out;
}

std::string Script(const std::string& dir, const std::string& id, const std::string& body) {
  const std::string path = dir + "/" + id;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

int Main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--run_all=", 0) == 0) g_run_all = a.substr(10);
    if (a.rfind("--trick=", 0) == 0) {
      const std::string path = a.substr(8);
      g_tricks[fs::path(path).filename().string()] = path;
    }
  }
  return RUN_ALL_TESTS();
}

}  // namespace run_all_test
}  // namespace trickbench
