// The command lines of //reports:report and //reports:compare, as functions so that
// tests run them in-process (exit codes, messages, which files get written).
//
//   bazel run //reports:report -- RUN_DIR [--out_dir=DIR]
//   bazel run //reports:compare -- OLD NEW [--md=PATH] [--html=PATH] [--fail_on_regression=PCT]
//                                          [--alpha=0.05] [--min_effect=PCT] [--noise=PATH]
//
// Exit codes: 0 done, 1 compare found a regression (outcome slower) beyond
// --fail_on_regression (or a file could not be written), 2 bad command line or bad
// input (one line on `err` naming the file and the field; nothing written).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace trickbench {
namespace reports {

inline constexpr int kExitBadInput = 2;
inline constexpr int kExitRegression = 1;

int ReportMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int CompareMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// For run_all: merge run_dir and write report.{json,md,html} into it. On success the
// three paths are in *paths; otherwise false and *error is one line.
bool WriteRunReport(const std::string& run_dir, std::vector<std::string>* paths,
                    std::string* error);

}  // namespace reports
}  // namespace trickbench
