// The comparison of two reports (compare.h) as a document: the outcome per setting, the
// times of an A/B session, what differs between the environments and machine states,
// and with a CI threshold the check's result. Printed by doc::PrintMarkdown / PrintHtml.
//
//   const ReportDiff diff = CompareReports(old_report, new_report, rule);
//   std::cout << doc::PrintMarkdown(DiffDocument(diff, /*fail_percent=*/10.0));
#pragma once

#include <optional>

#include "reports/compare.h"
#include "reports/document.h"

namespace trickbench {
namespace reports {

// The comparison as a document; with `fail_percent` it states the CI check's result.
doc::Document DiffDocument(const ReportDiff& diff, std::optional<double> fail_percent);

}  // namespace reports
}  // namespace trickbench
