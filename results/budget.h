// How a budgeted run_all run spent its time: the budget, the first pass that measured
// every trick, and the processes added where the intervals were widest
// (stats/allocation.h). run_all records it in the index (index.json "budget"); the report
// carries it and says it in one sentence, so a reader knows why one trick has 3
// processes and another 14.
//
//   results::RunBudget b;
//   b.seconds = 520; b.first_pass_processes = 3; b.first_pass_seconds = 290;
//   b.added = {{"channels_last", 4}, {"pin_memory", 2}};
//   Json j = results::ToJson(b);
//   b = results::RunBudgetFromJson(fields, j, "budget");
//
// Why it is recorded: a run whose process counts differ per trick must say by what rule,
// or a reader cannot tell a budget's choice from a crash that lost processes.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "results/checked_json.h"

namespace trickbench {
namespace results {

struct RunBudget {
  double seconds = 0;  // for the trick processes in all, the first pass included
  std::string rule;    // how `seconds` was set: "--budget", or the default's rule
  int first_pass_processes = 0;
  double first_pass_seconds = 0;                             // wall time of the first pass
  int max_processes = 0;                                     // per trick, the first pass included
  double imprecise_half_width = 0, decision_half_width = 0;  // the allocation's targets
  std::map<std::string, int> added;  // trick id -> processes added after the first pass
  int left_out = 0;  // added processes not run because the budget was spent before them
  // Of `added`, the processes planned towards decision_half_width; the rest went towards
  // imprecise_half_width. Unset in records written before it was kept.
  std::optional<int> towards_decision;
};

// The processes added after the first pass, all tricks together (the sum of `added`).
int AddedProcesses(const RunBudget& budget);

// The one serialisation, for the index and report.json alike. The reader refuses a
// missing or ill-typed field, or a negative count or time, naming it.
Json ToJson(const RunBudget& budget);
RunBudget RunBudgetFromJson(const Fields& f, const Json& j, const std::string& path);

}  // namespace results
}  // namespace trickbench
