// run_all's index (index.json in a run folder): which trick processes ran, with what
// outcome, and where their result and log are; the machine's load around the run; and,
// in an A/B session, which side of it this folder is. Format: reports/SCHEMA.md section 2.
//
//   results::RunIndex index;
//   index.started = "2026-01-01T00:00:00Z";
//   index.out_dir = "/abs/results/run-20260101-000000";
//   index.timeout_seconds = 300;
//   index.processes = 2;
//   index.tricks.push_back({"no_grad_inference", results::RunOutcome::kOk, "", 0, 12.5,
//                           "no_grad_inference.p1.json", "no_grad_inference.p1.log", 1});
//   std::string error;
//   if (!results::WriteRunIndex(dir + "/index.json", index, &error)) ...   // atomically
//
//   results::RunIndex back = results::ReadRunIndex(dir + "/index.json");  // or InputError
//
// Why one entry per process and not per trick: each process of a trick is a separate
// measurement with its own outcome (process 3 may time out where 1 and 2 did not), and
// readers group the entries by id. Why the machine's state is recorded: a compare of two
// runs must be able to name the one whose machine was busier (load, steal).
//
// Why run_all rewrites the whole index after every trick (complete: false until the
// end): a run stopped half-way, by a signal or a power cut, still leaves an index that
// says what was done and that the run did not finish.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/budget.h"
#include "results/checked_json.h"
#include "results/phases.h"
#include "results/status.h"

namespace trickbench {
namespace results {

// The one definition of the index's schema version. 2 added the outcome "interrupted"
// and the field interrupted_by; 3 one entry per process (`process`), `processes`,
// `machine` and `ab`. Readers still accept versions 1 and 2 (every entry is process 1).
inline constexpr int kIndexSchemaVersion = 3;
inline constexpr int kOldestReadableIndexSchemaVersion = 1;
inline constexpr char kIndexKind[] = "trickbench-run-index";

struct IndexEntry {
  std::string id;
  RunOutcome outcome = RunOutcome::kFailed;
  std::string reason;                 // why, for anything but ok ("" otherwise)
  int exit_code = -1;                 // -1 when it did not exit (signal, timeout)
  double seconds = 0;                 // wall time of the trick's process
  std::optional<std::string> result;  // result file name in the folder; none if not written
  std::string log;                    // its stdout and stderr, file name in the folder
  int process = 1;                    // which of the trick's processes (1-based)
  // Where its time went, from its result file (optional: none when it wrote none, or
  // before it was recorded); `seconds` less their sum is its start and exit.
  std::optional<PhaseSeconds> phase_seconds;
  // Started as a fork of its trick's fork server (run_all's, harness/fork_server.h),
  // which had loaded LibTorch once for the run, not exec'd (optional; false when absent).
  bool forked = false;
};

// The machine around the run (common/interference.h); -1 where unknown.
struct MachineState {
  double load_start = -1;             // 1-minute load average when the run started
  double load_end = -1;               // ... when it ended
  double steal_seconds = -1;          // CPU steal during the run, all CPUs (machine-wide)
  int64_t involuntary_switches = -1;  // preemptions of the trick processes, all together
};

inline constexpr char kAbOld[] = "old";
inline constexpr char kAbNew[] = "new";

// An A/B session (run_all --ab): two builds' trick processes interleaved in one run,
// each build's results in its own folder. Both folders' indexes carry the same seed
// and order; `role` says which build this folder holds.
struct AbSession {
  int64_t seed = 0;  // the order's seed (>= 0)
  std::string role;  // kAbOld or kAbNew
  std::string old_bin_dir, new_bin_dir;
  std::vector<std::string> order;  // the builds in the order their processes ran
};

struct RunIndex {
  std::string started;                        // UTC, "2026-01-01T00:00:00Z"
  std::optional<std::string> finished;        // set when the run ended, however it ended
  bool complete = false;                      // every trick ran
  std::optional<std::string> interrupted_by;  // "SIGTERM", "SIGINT" when stopped by a signal
  std::string out_dir;                        // absolute path of the run folder
  double timeout_seconds = 0;                 // per-trick limit
  std::vector<std::string> forwarded_flags;   // given to every trick binary
  // Processes per trick asked for (>= 1); in a budgeted run the most any trick may get
  // so far (the first pass, then the first pass plus what the budget added).
  int processes = 1;
  MachineState machine;
  std::optional<AbSession> ab;      // only in an A/B session
  std::optional<RunBudget> budget;  // only in a budgeted run (run_all without --processes)
  std::vector<IndexEntry> tricks;   // one per process, in the order they ran

  Json ToJson() const;
  // Checks everything a reader relies on; InputError naming `file` and the field.
  // An empty trick list is valid (a run interrupted before its first trick ended).
  static RunIndex FromJson(const Json& j, const std::string& file);
};

// Atomic write (common/atomic_file.h): false with a message naming the path.
bool WriteRunIndex(const std::string& path, const RunIndex& index, std::string* error);
// ReadJsonFile + FromJson.
RunIndex ReadRunIndex(const std::string& path);

// The result file name (in the index's folder) of trick `id`'s process 1 when it timed
// (outcome ok, file written): the iteration counts its later processes, and runs timed
// like for like with it, use (harness/rounds.h says why). None otherwise.
std::optional<std::string> TimedProcess1Result(const RunIndex& index, const std::string& id);

}  // namespace results
}  // namespace trickbench
