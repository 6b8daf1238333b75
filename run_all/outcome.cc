#include "run_all/outcome.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "results/result_file.h"
#include "results/status.h"

namespace trickbench {
namespace run_all {

std::string LastLines(const std::string& path, int n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  std::string out;
  const size_t first = lines.size() > static_cast<size_t>(n) ? lines.size() - n : 0;
  for (size_t i = first; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + lines[i];
  return out;
}

std::string FileStem(const std::string& id, int process) {
  return id + ".p" + std::to_string(process);
}

results::IndexEntry Classify(const std::string& id, int process, const ChildExit& exit,
                             const std::string& dir, double timeout_seconds) {
  using results::ResultStatus;
  using results::RunOutcome;
  results::IndexEntry entry;
  entry.id = id;
  entry.process = process;
  const std::string stem = FileStem(id, process);
  entry.log = stem + ".log";
  entry.exit_code = exit.exited ? exit.exit_code : -1;
  entry.seconds = exit.seconds;
  const std::string log = dir + "/" + entry.log;
  const std::string result_path = dir + "/" + stem + ".json";

  // The result file, if there is a well-formed one.
  std::optional<results::TrickResult> result;
  std::string rejected;  // why a result file that exists was not believed
  if (std::filesystem::exists(result_path)) {
    try {
      result = results::ReadResultFile(result_path).trickbench;
      entry.result = stem + ".json";
      entry.phase_seconds = result->phase_seconds;
    } catch (const results::InputError& e) {
      rejected = e.what();
    }
  }
  auto last_line = [&log] {
    const std::string l = LastLines(log, 1);
    return l.empty() ? "" : ": " + l;
  };

  if (!exit.started) {
    entry.outcome = RunOutcome::kFailed;
    entry.reason = exit.start_error;
  } else if (exit.stopped_by) {
    entry.outcome = RunOutcome::kInterrupted;
    entry.reason = "run_all got " + SignalName(exit.stopped_by) + " and stopped it";
  } else if (exit.timed_out) {
    entry.outcome = RunOutcome::kTimeout;
    entry.reason = "exceeded the " + std::to_string(static_cast<int>(timeout_seconds)) + " s limit";
  } else if (!exit.exited) {
    entry.outcome = RunOutcome::kCrashed;
    entry.reason = "killed by signal " + std::to_string(exit.term_signal) + " (" +
                   strsignal(exit.term_signal) + ")" + last_line();
  } else if (result && exit.exit_code == results::kExitOk &&
             result->status != ResultStatus::kInvalid && result->status != ResultStatus::kError) {
    entry.outcome = results::OutcomeOf(result->status);
    entry.reason = result->reason;
  } else if (result && exit.exit_code == results::kExitInvalid &&
             result->status == ResultStatus::kInvalid) {
    entry.outcome = RunOutcome::kInvalid;
    entry.reason = result->reason;
  } else if (result && result->status == ResultStatus::kError) {
    entry.outcome = RunOutcome::kError;
    entry.reason = result->reason;
  } else {
    entry.outcome = RunOutcome::kFailed;
    entry.reason = "exit " + std::to_string(exit.exit_code) +
                   (result             ? ""
                    : rejected.empty() ? ", no result file"
                                       : ", result file rejected (" + rejected + ")") +
                   ": " + LastLines(log, 2);
  }
  return entry;
}

}  // namespace run_all
}  // namespace trickbench
