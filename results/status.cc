#include "results/status.h"

namespace trickbench {
namespace results {

std::string Name(ResultStatus status) {
  switch (status) {
    case ResultStatus::kOk:
      return "ok";
    case ResultStatus::kSkipped:
      return "skipped";
    case ResultStatus::kChecked:
      return "checked";
    case ResultStatus::kInvalid:
      return "invalid";
    case ResultStatus::kError:
      return "error";
  }
  return "error";  // unreachable: every enumerator is handled (-Wswitch checks it)
}

std::string Name(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kOk:
      return "ok";
    case RunOutcome::kSkipped:
      return "skipped";
    case RunOutcome::kInvalid:
      return "invalid";
    case RunOutcome::kError:
      return "error";
    case RunOutcome::kCrashed:
      return "crashed";
    case RunOutcome::kTimeout:
      return "timeout";
    case RunOutcome::kFailed:
      return "failed";
    case RunOutcome::kInterrupted:
      return "interrupted";
  }
  return "failed";  // unreachable, as above
}

const std::vector<ResultStatus>& AllResultStatuses() {
  static const std::vector<ResultStatus> all = {ResultStatus::kOk, ResultStatus::kSkipped,
                                                ResultStatus::kChecked, ResultStatus::kInvalid,
                                                ResultStatus::kError};
  return all;
}

const std::vector<RunOutcome>& AllRunOutcomes() {
  static const std::vector<RunOutcome> all = {
      RunOutcome::kOk,      RunOutcome::kSkipped, RunOutcome::kInvalid, RunOutcome::kError,
      RunOutcome::kCrashed, RunOutcome::kTimeout, RunOutcome::kFailed,  RunOutcome::kInterrupted};
  return all;
}

std::optional<ResultStatus> ParseResultStatus(const std::string& name) {
  for (ResultStatus s : AllResultStatuses()) {
    if (Name(s) == name) return s;
  }
  return std::nullopt;
}

std::optional<RunOutcome> ParseRunOutcome(const std::string& name) {
  for (RunOutcome o : AllRunOutcomes()) {
    if (Name(o) == name) return o;
  }
  return std::nullopt;
}

RunOutcome OutcomeOf(ResultStatus status) {
  switch (status) {
    case ResultStatus::kOk:
    case ResultStatus::kChecked:
      return RunOutcome::kOk;
    case ResultStatus::kSkipped:
      return RunOutcome::kSkipped;
    case ResultStatus::kInvalid:
      return RunOutcome::kInvalid;
    case ResultStatus::kError:
      return RunOutcome::kError;
  }
  return RunOutcome::kFailed;  // unreachable
}

}  // namespace results
}  // namespace trickbench
