// Loading what run_all and the trick binaries wrote, and merging a run into a Report.
//
//   Report run = MergeRun("results/run-20260101-120000");  // index.json + every <id>.json
//   Report one = LoadReportOrResult("old/report.json");    // or a per-trick result file
//
// Every loader checks what it reads and throws InputError naming the file and the field
// ("x.json: benchmarks[3].real_time: negative time -1.000"); a loaded trick is analysed
// (analyze.h) before it is returned.
#pragma once

#include <map>
#include <string>

#include "reports/checked_json.h"
#include "reports/report.h"

namespace trickbench {
namespace reports {

inline constexpr int kResultSchemaVersion = 1;  // harness/runner.h kResultSchemaVersion
inline constexpr int kIndexSchemaVersion = 1;
inline constexpr char kIndexKind[] = "trickbench-run-index";

// What a JSON document is: "report", "result", "index", or throws InputError.
std::string KindOf(const Json& j, const std::string& file);

// A per-trick result file (Google Benchmark JSON + "trickbench"); outcome is its status.
// `environment` (optional) gets its context, less what describes one run.
Trick TrickFromResult(const Json& result, const std::string& file,
                      std::map<std::string, std::string>* environment);

// run_dir/index.json and the result files it names. The index's outcome wins over a
// result file's status: run_all saw the process (a crash after writing is a crash).
Report MergeRun(const std::string& run_dir);

// A report.json, or a per-trick result file made into a one-trick report.
// *kind (optional) gets "report" or "result".
Report LoadReportOrResult(const std::string& path, std::string* kind = nullptr);

}  // namespace reports
}  // namespace trickbench
