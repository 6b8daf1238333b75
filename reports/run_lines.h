// The report's paragraphs about the run itself, as render.cc places them above and
// between its tables: when and how it ran, its tally of verdicts, where its processes'
// time went, how a budget was spent, and how to read the numbers.
//
//   doc::Document d;
//   d.blocks.push_back(doc::Paragraph{RunLine(report)});      // "Run R: started ..."
//   d.blocks.push_back(doc::Paragraph{SummaryLine(report)});  // "47 tricks: 30 hold, ..."
//
// Each is a pure function of the report, as the whole document is (render.h).
#pragma once

#include <string>

#include "reports/document.h"
#include "reports/report.h"
#include "results/budget.h"

namespace trickbench {
namespace reports {

// Which run, when, complete or not, and the flags its processes were given.
doc::Text RunLine(const Report& r);
// How many tricks hold, in part, not, ...; how many timed settings are imprecise.
std::string SummaryLine(const Report& r);
// Where the trick processes' time went. Only for a report with phase_seconds.
std::string TimeSplitLine(const Report& r);
// How a budgeted run spent its time: why one trick has 3 processes and another 14.
std::string BudgetLine(const results::RunBudget& b);
// What a speedup, its interval, p and the verdict words mean in this report.
std::string MethodLine(const Report& r);

}  // namespace reports
}  // namespace trickbench
