// run_all's command line: the trick binaries (Bazel passes them first, see
// benches/BUILD), run_all's own flags, and the flags it forwards to every trick.
//
//   run_all::Options o;
//   std::string error;
//   if (!run_all::ParseOptions({"bench/a", "--timeout=60", "--threads=2"}, &o, &error)) ...
//   // o.binaries == {"bench/a"}, o.timeout == 60, o.forward == {"--threads=2"}
//
// Forwarded values are checked by the trick binaries themselves (run_all asks the
// first one before it starts, see run.h): the trick's options are the one definition
// of what --threads or --device accept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trickbench {
namespace run_all {

// Processes per trick of an A/B session when --processes is not given: the one place
// that says it. Fresh processes turn process-level effects (allocation layout, page
// placement, CPU frequency) into measured variance, and that variance, not the rounds',
// sets the width of most intervals here: with 5 processes 8 of 54 settings were
// imprecise (half-width > 10 %), their advice asked for about 8. A run of one build
// spends a time budget instead (budget.h), unless --processes fixes the count.
inline constexpr int kDefaultProcesses = 8;

struct Options {
  std::vector<std::string> binaries;  // trick binaries; the id is the file name
  std::string out_dir;                // "" = <RunsRoot()>/run-<UTC time>
  double timeout = 300;               // seconds per trick
  std::vector<std::string> only, skip;
  bool list = false;
  bool help = false;
  int processes = kDefaultProcesses;  // fresh processes per trick, round-robin over tricks
  bool processes_given = false;       // --processes: a fixed count, no budget
  // --budget: seconds for the trick processes in all, first pass included; none: the
  // default rule (budget.h). Only for a budgeted run.
  std::optional<double> budget_seconds;
  // --ab=OLD_BIN_DIR,NEW_BIN_DIR: an A/B session of two builds' trick binaries.
  std::string ab_old_dir, ab_new_dir;
  std::optional<uint64_t> ab_seed;   // --ab_seed; none: drawn from the clock
  std::vector<std::string> forward;  // for every trick binary, verbatim, in order
  // --settle=RUN_DIR: more processes for that finished run, where its intervals are
  // still widest, within --budget (budget.h SettleBudget); its report written again.
  std::string settle_dir;
  // --iterations_from=RUN_DIR: every process of a trick that run timed uses the
  // iterations per sample of its process 1 there, so a compare against it is like for
  // like (reports/like_for_like.h); "" = process 1 of this run calibrates.
  std::string iterations_from_dir;
  // Each trick process a fork of a server per trick binary that loaded LibTorch once for
  // the run (fork_client.h), unless --exec; a server that cannot serve falls back to exec.
  bool exec = false;

  bool ab() const { return !ab_old_dir.empty(); }
  bool settling() const { return !settle_dir.empty(); }
  // A new run of one build without --processes spends a time budget: a first pass of
  // every trick, then more processes where the intervals are widest (budget.h).
  bool budgeted() const { return !ab() && !processes_given && !settling(); }
};

// False with one line in *error (without the "run_all: " prefix) on a bad command line.
bool ParseOptions(const std::vector<std::string>& args, Options* options, std::string* error);

// The --help text.
std::string Usage();

}  // namespace run_all
}  // namespace trickbench
