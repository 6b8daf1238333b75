// Two runs of one setting read at one machine speed: each process's value regressed on
// how fast the machine ran in that process (its median log speed-probe time), with one
// slope fitted over both runs, and the new run read at the old run's mean speed.
//
//   // per process: its rounds' log ratios, and the median log probe_ns of its samples
//   OneSpeed s = AtOldRunsSpeed(old_lr, old_probe, new_lr, new_probe);
//   if (s.adjusted) {
//     Change c = CompareSpeedups(s.old_side, s.new_side);  // Welch returns the fit's dof
//   }  // else s.why_not says why; compare the plain estimates
//
// Why: on a shared VM the CPU runs in spells of seconds at up to 2x its usual speed for
// branchy, dispatch-bound code. A trick whose baseline is a loop of small ops slows in a
// slow spell more than its optimized variant, so its speedup follows the spell: the
// process values of four tricks here correlate 0.91-0.99 with the baseline's time. Rounds
// of one process share a spell, so more rounds do not average it out; it is most of the
// spread between processes, and two runs that caught different spells differ by it.
// The probe (common/speed_probe.h) measures the spell beside every sample without being
// touched by any variant, so regressing on it removes what the spell explains.
//
// Why one slope over both runs (an analysis of covariance), not a line per run: how a
// setting's speedup follows the machine's speed belongs to the setting on this machine,
// and an unchanged build has the same slope in both runs. One slope is estimated from
// the spread within both runs, and the change between the runs is
//   (mean new - mean old) - slope * (mean new speed - mean old speed),
// with variance s^2 (1/n_old + 1/n_new + (speed gap)^2 / Sxx) on n_old + n_new - 3
// degrees of freedom. Two lines each read at a shared reference would each carry their
// own extrapolation and lose two degrees of freedom a side: tried first, on 12 A/A
// sessions here it left 5 false alarms of 792 and a median detectable effect of 5.7 %,
// where one slope left 1 and 5.5 % (README, the noise study).
// Read at the old run's speed, the old side is its plain mean and the whole slope term
// falls on the new side, so the two sides' variances add up to the change's exactly.
//
// The line is fitted, never chosen: the adjustment applies by a fixed rule (enough
// processes, some spread of speed within the runs), never because it narrowed an
// interval, so a compare's false alarms stay at alpha (the tests measure them).
#pragma once

#include <string>
#include <vector>

#include "stats/speedup.h"

namespace trickbench {
namespace stats {

// The fewest processes, over both runs and in each, for the fit: n_old + n_new - 3 >= 5
// degrees of freedom, and each run's mean from more than two processes.
inline constexpr int kSpeedAdjustMinProcesses = 8;
inline constexpr int kSpeedAdjustMinPerRun = 3;

struct OneSpeed {
  // old_side: the old run at its own mean speed (the mean of its process values);
  // new_side: the new run read at that speed. Each carries speedup, low/high, log_se,
  // half_width, imprecise and the t test's p_value; method "speed_adjusted". Their dof is
  // the same on both sides, chosen so that Welch's combination of the two
  // (CompareSpeedups) returns the fit's n_old + n_new - 3; each side's own interval uses
  // it. between_sd is the fit's residual sd; counts and within_sd are as measured.
  Speedup old_side, new_side;
  bool adjusted = false;  // false: too few processes or no spread of speed (see `why_not`)
  std::string why_not;
  double slope = 0;      // change of the log speedup per unit of log probe time
  double reference = 0;  // the old run's mean log probe time, where both are read
  double dof = 0;        // n_old + n_new - 3
};

// log_ratios: one vector per process (its rounds' log(baseline / variant)); log_probe:
// that process's median log probe time, same length. Processes with no round are left
// out, like EstimateSpeedup does. Not adjusted (adjusted false, the sides default) when
// fewer than kSpeedAdjustMinProcesses processes have rounds over both runs, or fewer
// than kSpeedAdjustMinPerRun in one, or the probes within the runs do not differ. Throws
// std::invalid_argument when the lengths differ, a value is not finite, or confidence
// is not in (0, 1).
OneSpeed AtOldRunsSpeed(const std::vector<std::vector<double>>& old_log_ratios,
                        const std::vector<double>& old_log_probe,
                        const std::vector<std::vector<double>>& new_log_ratios,
                        const std::vector<double>& new_log_probe, double confidence = 0.95,
                        double imprecise_half_width = 0.10);

}  // namespace stats
}  // namespace trickbench
