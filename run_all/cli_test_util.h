// What run_all's command-line tests (cli_test, budget_cli_test, ab_cli_test) share: the
// binaries Bazel passes them, scratch folders, files read back, stand-in trick scripts.
//
//   // BUILD: args = ["--run_all=$(rootpath :run_all)", "--trick=$(rootpath ...noop)"]
//   const Proc p = Exec(g_run_all + " " + g_tricks["noop"] + " --out_dir=" + Tmp("mine"));
//   int main(int argc, char** argv) { return trickbench::run_all_test::Main(argc, argv); }
//
// Why three test binaries and not one: they run in parallel under `bazel test`, and each
// file stays about one concern (a run, a budget and its settle, an A/B session).
#pragma once

#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "harness/testing/subprocess.h"
#include "results/run_index.h"
#include "results/status.h"

namespace trickbench {
namespace results {
// Failures name the outcome, not its bytes.
void PrintTo(RunOutcome o, std::ostream* os);
}  // namespace results

namespace run_all_test {

using results::RunOutcome;
using subprocess::Proc;

extern std::map<std::string, std::string> g_tricks;  // id -> binary path (--trick=PATH)
extern std::string g_run_all;                        // --run_all=PATH

Proc Exec(const std::string& cmd);
// A fresh, empty folder under TEST_TMPDIR.
std::string Tmp(const std::string& name);
std::string Read(const std::string& path);
std::vector<std::string> Lines(const std::string& path);
std::vector<std::string> Files(const std::string& dir);  // names, sorted
std::map<std::string, RunOutcome> Outcomes(const results::RunIndex& index);
// (id, process) of each index entry, in the order they ran: "noop.p2".
std::vector<std::string> Processes(const results::RunIndex& index);
// A stand-in trick binary: a shell script (run_all runs any executable).
std::string Script(const std::string& dir, const std::string& id, const std::string& body);

// Waits up to `seconds` for `check`.
template <typename F>
bool Eventually(F check, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!check()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Reads --run_all= and --trick= (the rest is GoogleTest's) and runs the tests.
int Main(int argc, char** argv);

}  // namespace run_all_test
}  // namespace trickbench
