// How a time budget is spent on benchmark processes after a first pass: the extra
// processes go to the units (tricks) whose intervals they narrow most per second, judged
// on the measured spread of the process values only, never on the estimates.
//
//   std::vector<stats::AllocationUnit> units = {
//       {/*seconds_per_process=*/4.0, /*processes=*/3, /*setting_sds=*/{0.02, 0.09}},
//       {/*seconds_per_process=*/1.5, /*processes=*/3, /*setting_sds=*/{0.004}}};
//   stats::AllocationRule rule;
//   rule.budget_seconds = 60;
//   std::vector<int> extra = stats::AllocateProcesses(units, rule);  // per unit
//
// Why spread only. Which settings get more processes may depend on anything that is
// independent of the estimate; the sample variance of normal process values is
// independent of their mean, so allocating on it leaves each setting's interval and test
// as valid as with a fixed count (the "internal pilot" design). Allocating on the
// estimates (more processes where the interval still touches a boundary, stopping where
// it is significant) is optional stopping: an A/A compare then raises false alarms well
// above alpha. allocation_test.cc measures both on seeded simulations.
//
// Why an upper bound on each spread. With a first pass of 3, a sample sd is often far
// below the truth, and a setting whose sd came out small is judged settled and gets no
// more processes, so its final interval keeps the small sd: the intervals of exactly
// the settings that stopped early are too narrow, and two runs of one build get unequal
// counts for the same setting. In the simulations (allocation_test.cc), judging the sd
// as measured gave coverage 93.6 % and a raw A/A false-alarm rate of 7 %; its 80 %
// upper bound 93.8 %, 5.9 %, and runs with any false alarm under compare's rule 6.8 %
// (7 processes each: 1.2 %). The 95 % bound, the default, stops early only where even
// it says settled. Whether the cap lets a setting reach a target at all is judged on a
// milder bound (80 %): on the 95 % one every noisy setting was given up at once (a
// first default run did that: 19 of 70 imprecise). With both: coverage 94.0 %, raw A/A
// false alarms 6.15 % (24 processes each: 5.5 %, the bootstrap over many processes
// being a little liberal itself), under compare's rule 0.75 % of settings and 5.6 % of
// runs, and 45 % of the settings "unchanged" against 37 % for 7 processes each (compare's
// two one-sided tests; 36 % and 30 % under the 95 % interval rule it used before).
//
// Why two targets. First every setting whose interval is "imprecise" (half-width above
// imprecise_half_width: no verdict) is brought under it where the cap allows; the rest
// of the budget goes towards decision_half_width, the width at which a compare of two
// such runs can call a setting "unchanged" within the +-5 % rule (each side half of it).
// A setting whose projected width (on its measured spread) stays above a target even at
// max_processes gets nothing for that target: the budget cannot settle it.
#pragma once

#include <vector>

namespace trickbench {
namespace stats {

// One unit of allocation: a trick, all of whose settings one process measures.
struct AllocationUnit {
  double seconds_per_process = 0;  // what one more process costs (its wall time)
  int processes = 0;               // measured so far (at least 2 to have a spread)
  // Per setting graded on time: the standard deviation of its per-process values (log
  // speedup, Speedup::between_sd). Empty: nothing to narrow.
  std::vector<double> setting_sds;
};

struct AllocationRule {
  double budget_seconds = 0;           // for the extra processes, all units together
  int max_processes = 24;              // per unit, the first pass included
  double imprecise_half_width = 0.10;  // the first target (relative half-width)
  double decision_half_width = 0.025;  // then this one
  double confidence = 0.95;
  // The spreads are judged by this one-sided upper confidence bound on the sd from the
  // first pass (chi-square with processes - 1 dof), not by the sd itself; 0: as measured.
  double spread_confidence = 0.95;
  // Whether the cap lets a setting reach a target at all is judged on a milder upper
  // bound, at this confidence (see the header); 0: as measured.
  double reach_confidence = 0.8;
};

// The relative half-width of a t interval over `processes` process values whose
// standard deviation is `process_sd` (log scale): exp(t * sd / sqrt(n)) - 1. Infinite
// below two processes.
double ProjectedHalfWidth(double process_sd, int processes, double confidence = 0.95);

// Extra processes per unit (parallel to `units`), greedily, first towards
// imprecise_half_width, then towards decision_half_width: each next process goes to the
// unit with the largest gain per second, the gain being the summed log-reduction of its
// settings' projected half-widths above the target, while its cost still fits the
// budget. Units with fewer than two processes, no settings or a non-positive cost get
// none. `towards_decision` (optional): how many of them the second target placed, so
// that a report can say which target the budget went to (on a first pass of 3 the
// spreads' upper bounds are 4.4 times the measured sds, and in the default runs on this
// project's 2-core machine the first target took the whole budget). Throws
// std::invalid_argument for a negative budget, a non-finite or negative sd, or
// max_processes < 2.
std::vector<int> AllocateProcesses(const std::vector<AllocationUnit>& units,
                                   const AllocationRule& rule, int* towards_decision = nullptr);

}  // namespace stats
}  // namespace trickbench
