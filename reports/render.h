// Rendering a report: Markdown for terminals and CI logs, and one self-contained HTML
// page (inline CSS and SVG charts; nothing is fetched, no script runs).
//
//   const trickbench::reports::Report report = trickbench::reports::MergeRun(run_dir);
//   std::cout << trickbench::reports::RenderMarkdown(report);
//   std::string html = trickbench::reports::RenderHtml(report);
//
// Output is a pure function of the report (no clock, no paths), so it can be golden-tested.
#pragma once

#include <string>
#include <vector>

#include "reports/report.h"

namespace trickbench {
namespace reports {

std::string RenderMarkdown(const Report& report);
std::string RenderHtml(const Report& report);

// Text helpers shared with compare.
std::string HtmlEscape(const std::string& s);
std::string MarkdownCell(const std::string& s);  // escapes | and newlines
std::string SettingName(const std::string& case_name, const std::string& variant);

// Renders report.json, report.md and report.html in memory, then writes each one
// atomically into `dir`. False with *error on a write failure; *paths gets what was written.
bool WriteReportFiles(const Report& report, const std::string& dir,
                      std::vector<std::string>* paths, std::string* error);

}  // namespace reports
}  // namespace trickbench
