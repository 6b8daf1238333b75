// A report as a document (document.h), and the run's report files: report.json for
// tools, report.md for terminals and CI logs, one self-contained report.html with charts.
//
//   const Report report = MergeRun(run_dir);                   // load.h
//   std::cout << doc::PrintMarkdown(ReportDocument(report));
//   WriteReportFiles(report, run_dir, &paths, &error);         // all three, atomically
//
// Both formats say the same things because they print one document; the document is a
// pure function of the report (no clock, no paths), so the Markdown is golden-tested.
#pragma once

#include <string>
#include <vector>

#include "reports/document.h"
#include "reports/report.h"

namespace trickbench {
namespace reports {

doc::Document ReportDocument(const Report& report);

// Renders report.json, report.md and report.html in memory, then writes each one
// atomically into `dir`. False with *error on a write failure; *paths gets what was written.
bool WriteReportFiles(const Report& report, const std::string& dir, std::vector<std::string>* paths,
                      std::string* error);

}  // namespace reports
}  // namespace trickbench
