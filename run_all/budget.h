// How run_all spends a time budget (the default, without --processes): every trick runs
// a first pass of kFirstPassProcesses processes, round-robin; the first pass is merged
// into a report, and the rest of the budget is planned here as extra processes per trick
// (stats/allocation.h), on the spread of each timed setting's process values alone.
//
//   const reports::Report first = reports::MergeRun(dir);
//   run_all::BudgetPlan plan = run_all::PlanBudget(ids, first, index.tricks, seconds_left);
//   // plan.added[i] more processes of ids[i]; each costs plan.seconds_per_process[i]
//
// Why a first pass of 3: two processes give a spread with one degree of freedom, too
// noisy to allocate on (the simulations in stats/allocation_test.cc use 3 and keep
// coverage at 95 %); more would spend the budget evenly before knowing where it is needed:
// on the same total budget, a first pass of 5 left 38.5 % of the simulated settings
// "unchanged" in an A/A compare, against 45.2 % for 3 (allocation_test.cc). Two runs
// therefore give one trick unequal counts (3 processes in one, 12 in the other here).
// Why one plan after the first pass, not re-planned as processes come in: re-planning
// is as valid (it too looks at spreads only), and it was tried on allocation_test.cc's
// simulated runs. Re-planning the budget left after every wave of processes, or after
// each half of it, spread the budget more evenly: with reach judged as measured, fewer
// settings were imprecise (the noisiest in 9-14 % of runs against 61 %) and two runs
// gave a setting more similar counts, but 36-40 % of settings came out "unchanged" in an
// A/A compare against 45 % for one plan, and deciding is what a default run is for.
// Why at most 24 per trick: a setting whose spread needs more than that for a decision
// is not one a default run can settle; its advice says what would.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"
#include "results/run_index.h"

namespace trickbench {
namespace run_all {

inline constexpr int kFirstPassProcesses = 3;
inline constexpr int kMaxProcessesPerTrick = 24;
// The default budget: 3.5 times the first pass's wall time, so every trick gets about
// two and a half first passes again where its intervals need it, but at most
// kDefaultBudgetCap, so that a whole default run stays within its 10-minute target
// however slow the first pass was (stop 34: a first pass of 5.7 minutes on a VM with
// 25 % steal made 2.4 x the first pass a 13.8-minute run). The cap leaves 45 s of the
// 10 minutes for the report and a last process that overruns its estimate. A first
// pass over the cap gets no extra processes; a run of a few tricks (--only) stays
// short, since its first pass is. Why 3.5, not the 3 it was: once trick processes ended
// without LibTorch's static destructors (harness/end_process.h), the same 3 made default
// runs of 8:08 and 8:15 here (2026-12-06); the minute they saved goes to measurement, and
// the cap still holds a slow day to its 10 minutes.
inline constexpr double kDefaultFirstPassMultiple = 3.5;
inline constexpr double kDefaultBudgetCap = 555;  // seconds of trick processes

// The default rule's seconds after a first pass of `first_pass_seconds`.
double DefaultBudgetSeconds(double first_pass_seconds);

struct BudgetPlan {
  std::vector<int> added;                   // per trick, parallel to ids
  std::vector<double> seconds_per_process;  // what one more process of it is taken to cost
  int towards_decision = 0;                 // of `added`, placed by the second target
};

// What one more process of `id` costs: the median wall time of its measured processes
// after the first (process 1 alone also runs the checks and the reproducibility run),
// else process 1's; 0 when none was measured.
double SecondsPerProcess(const std::string& id, const std::vector<results::IndexEntry>& entries);

// The record of a budget after a first pass of `first_pass_seconds`: its seconds
// (`budget_seconds`, --budget, else the default rule), the rule in words, the cap and
// the targets (the report's imprecise width; half compare's +-5 % band for each side).
// added and left_out are the caller's to fill.
results::RunBudget NewBudget(double first_pass_seconds, std::optional<double> budget_seconds);
// The default rule in words, as the record and run_all's first line say it.
std::string DefaultBudgetRule();

// The budget of `run_all --settle` on the finished run `index`: `seconds` (--budget),
// else as long as the run's processes took in all, so a settle at most doubles the
// run's cost. Its first pass is the run as it stands (none of the settle's time spent);
// added and left_out are the caller's to fill.
results::RunBudget SettleBudget(const results::RunIndex& index, std::optional<double> seconds);

// The run's budget record after `settle` (SettleBudget's, filled): the run's own
// record with the settle's seconds and processes added and its rule appended, or for a
// run of a fixed count a record whose first pass is that count.
results::RunBudget WithSettle(const results::RunIndex& index, const results::RunBudget& settle);

// The extra processes for the tricks `ids` within what `budget` leaves after its first
// pass, from the first pass's report (its timed settings' spreads) and the index's
// entries (their costs). Tricks that are not in the report, not measured, or without a
// timed setting get none.
BudgetPlan PlanBudget(const std::vector<std::string>& ids, const reports::Report& first_pass,
                      const std::vector<results::IndexEntry>& entries,
                      const results::RunBudget& budget);

}  // namespace run_all
}  // namespace trickbench
