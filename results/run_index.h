// run_all's index (index.json in a run folder): which tricks ran, with what outcome,
// and where their result and log are. Format: reports/SCHEMA.md section 2.
//
//   results::RunIndex index;
//   index.started = "2026-01-01T00:00:00Z";
//   index.out_dir = "/abs/results/run-20260101-000000";
//   index.timeout_seconds = 300;
//   index.tricks.push_back({"no_grad_inference", results::RunOutcome::kOk, "", 0, 12.5,
//                           "no_grad_inference.json", "no_grad_inference.log"});
//   std::string error;
//   if (!results::WriteRunIndex(dir + "/index.json", index, &error)) ...   // atomically
//
//   results::RunIndex back = results::ReadRunIndex(dir + "/index.json");  // or InputError
//
// Why run_all rewrites the whole index after every trick (complete: false until the
// end): a run stopped half-way, by a signal or a power cut, still leaves an index that
// says what was done and that the run did not finish.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/checked_json.h"
#include "results/status.h"

namespace trickbench {
namespace results {

// The one definition of the index's schema version. 2 added the outcome "interrupted"
// and the field interrupted_by; readers still accept version 1 files.
inline constexpr int kIndexSchemaVersion = 2;
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
};

struct RunIndex {
  std::string started;                        // UTC, "2026-01-01T00:00:00Z"
  std::optional<std::string> finished;        // set when the run ended, however it ended
  bool complete = false;                      // every trick ran
  std::optional<std::string> interrupted_by;  // "SIGTERM", "SIGINT" when stopped by a signal
  std::string out_dir;                        // absolute path of the run folder
  double timeout_seconds = 0;                 // per-trick limit
  std::vector<std::string> forwarded_flags;   // given to every trick binary
  std::vector<IndexEntry> tricks;             // in the order they ran

  Json ToJson() const;
  // Checks everything a reader relies on; InputError naming `file` and the field.
  // An empty trick list is valid (a run interrupted before its first trick ended).
  static RunIndex FromJson(const Json& j, const std::string& file);
};

// Atomic write (common/atomic_file.h): false with a message naming the path.
bool WriteRunIndex(const std::string& path, const RunIndex& index, std::string* error);
// ReadJsonFile + FromJson.
RunIndex ReadRunIndex(const std::string& path);

}  // namespace results
}  // namespace trickbench
