// The report's own file, report.json (reports/SCHEMA.md section 3): what run_all and
// //reports:report write beside report.md and report.html, and what compare reads.
//
//   Json j = ReportToJson(report);                    // derived fields included, for people
//   Report back = ReportFromJson(j, "report.json");   // raw fields read, the rest re-derived
//
// ReportFromJson trusts nothing derived: it reads the raw fields (samples, per-process
// medians, log ratios, checks), then Analyze recomputes statistics and verdicts, so a
// hand-edited report is judged by this build's rules. Errors are results::InputError naming the file and the field.
#pragma once

#include <string>

#include "reports/report.h"
#include "results/checked_json.h"

namespace trickbench {
namespace reports {

// 2: speedups from paired rounds over processes (SCHEMA.md section 4), "imprecise"
// instead of "noisy", per-process medians, log ratios, the machine and the A/B session.
// 3: each variant's check as the result file's (variants[].check), each effect's
// statistics as stats::Speedup (comparisons[].time), no schema-1 fields. An older
// report is refused with what to do: re-render it from its run folder.
inline constexpr int kReportSchemaVersion = 3;
inline constexpr char kReportKind[] = "trickbench-report";

results::Json ReportToJson(const Report& report);
Report ReportFromJson(const results::Json& j, const std::string& file);

}  // namespace reports
}  // namespace trickbench
