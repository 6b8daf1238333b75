// The words trick binaries, run_all and reports agree on: a result file's status, a
// run's outcome per trick, and the trick binary's exit status. One definition each;
// reports/SCHEMA.md lists them and results/schema_doc_test.cc checks that it does.
//
//   results::ResultStatus s = results::ParseResultStatus("checked").value();
//   results::RunOutcome o = results::OutcomeOf(s);          // kOk: checked counts as done
//   std::cout << results::Name(o);                           // "ok"
//
// The names are the JSON values: never spell them as string literals elsewhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trickbench {
namespace results {

// What a trick binary says about its own run, in the result file (trickbench.status).
enum class ResultStatus {
  kOk,       // measured
  kSkipped,  // not run here, with the reason (needs CUDA, none here)
  kChecked,  // --check_only: checks and memory, no timing
  kInvalid,  // a check failed: nothing timed, no speedup reported
  kError,    // a benchmark failed (threw) or none ran
};

// What run_all records per trick (index.json tricks[].outcome). It saw the process, so
// it can say what the result file cannot: crashed, timed out, never wrote a result.
enum class RunOutcome {
  kOk,           // measured (or checked)
  kSkipped,      // the result file says skipped
  kInvalid,      // the result file says invalid (exit 3)
  kError,        // the result file says error
  kCrashed,      // killed by a signal of its own (abort, segfault)
  kTimeout,      // stopped by run_all at the time limit
  kFailed,       // any other exit: no or unreadable result, unexpected exit status
  kInterrupted,  // stopped because run_all itself was interrupted (SIGINT, SIGTERM)
};

std::string Name(ResultStatus status);
std::string Name(RunOutcome outcome);
std::optional<ResultStatus> ParseResultStatus(const std::string& name);
std::optional<RunOutcome> ParseRunOutcome(const std::string& name);
// Every value, in declaration order (for help texts, documentation checks and tests).
const std::vector<ResultStatus>& AllResultStatuses();
const std::vector<RunOutcome>& AllRunOutcomes();

// The outcome a run records for a trick that exited normally with this status:
// checked is ok (the user asked for no timing), the others keep their name.
RunOutcome OutcomeOf(ResultStatus status);

// A trick binary's exit status (README "Run one trick"); run_all reads it.
inline constexpr int kExitOk = 0;       // measured, checked or skipped
inline constexpr int kExitError = 1;    // anything else
inline constexpr int kExitUsage = 2;    // bad command line (nothing measured or written)
inline constexpr int kExitInvalid = 3;  // a check failed (the result says invalid)

}  // namespace results
}  // namespace trickbench
