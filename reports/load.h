// Loading what run_all and the trick binaries wrote, and merging a run into a Report.
//
//   Report run = MergeRun("results/run-20260101-120000");  // index.json + every <id>.json
//   Report one = LoadReportOrResult("old/report.json");    // or a per-trick result file
//
// The files' formats belong to results/ (result_file.h, run_index.h): it checks them and
// throws results::InputError naming the file and the field ("x.json:
// benchmarks[3].real_time: negative time -1.000"). This file turns them into the
// report's model; every trick it returns has been analysed (analyze.h).
#pragma once

#include <map>
#include <string>

#include "reports/report.h"
#include "results/checked_json.h"

namespace trickbench {
namespace reports {

// What a JSON document is: "report", "result", "index", or throws results::InputError.
std::string KindOf(const results::Json& j, const std::string& file);

// A per-trick result file; the trick's outcome is its status (checked counts as ok).
// `environment` (optional) gets its context, less what describes one run.
TrickReport TrickFromResult(const results::Json& result, const std::string& file,
                            std::map<std::string, std::string>* environment);

// run_dir/index.json and the result files it names. The index's outcome wins over a
// result file's status: run_all saw the process (a crash after writing is a crash).
// Tricks whose context differs from the first one's are listed in environment_notes.
Report MergeRun(const std::string& run_dir);

// A report.json, or a per-trick result file made into a one-trick report.
// *kind (optional) gets "report" or "result".
Report LoadReportOrResult(const std::string& path, std::string* kind = nullptr);

}  // namespace reports
}  // namespace trickbench
