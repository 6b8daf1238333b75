#include "run_all/cli_test_util.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/test_files.h"

namespace trickbench {
namespace results {
void PrintTo(RunOutcome o, std::ostream* os) { *os << Name(o); }
}  // namespace results

namespace run_all_test {

namespace fs = std::filesystem;

std::map<std::string, std::string> g_tricks;
std::string g_run_all;

Proc Exec(const std::string& cmd) { return subprocess::RunCommand(cmd); }

// Tmp, Read and Files forward to common/test_files.h, which holds the one copy: the
// three tests call them by these names.
std::string Tmp(const std::string& name) { return test_files::ScratchDir(name); }

std::string Read(const std::string& path) { return test_files::Read(path); }

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Files(const std::string& dir) { return test_files::FileNames(dir); }

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
  test_files::Write(path, "#!/bin/sh\n" + body + "\n");
  chmod(path.c_str(), 0755);
  return path;
}

int Main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    test_files::ArgValue(a, "--run_all", &g_run_all);
    std::string path;
    if (test_files::ArgValue(a, "--trick", &path)) {
      g_tricks[fs::path(path).filename().string()] = path;
    }
  }
  return RUN_ALL_TESTS();
}

}  // namespace run_all_test
}  // namespace trickbench
