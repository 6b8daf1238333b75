// A speedup read at a reference machine speed: each process's value regressed on how
// fast the machine ran in that process (its median log speed-probe time), and the fitted
// line read at a speed both runs of a compare share.
//
//   // per process: its rounds' log ratios, and the median log probe_ns of its samples
//   SpeedAdjusted a = AtReferenceSpeed(log_ratios, log_probe, /*reference=*/11.52);
//   if (a.adjusted) use a.speedup (method "speed_adjusted"), else the plain estimate.
//   Change c = CompareSpeedups(AtReferenceSpeed(old_lr, old_probe, ref).speedup,
//                              AtReferenceSpeed(new_lr, new_probe, ref).speedup);
//
// Why: on a shared VM the CPU runs in spells of seconds at up to 2x its usual speed for
// branchy, dispatch-bound code. A trick whose baseline is a loop of small ops slows in a
// slow spell more than its optimized variant, so its speedup follows the spell: the
// process values of four tricks here correlate 0.91-0.99 with the baseline's time. Rounds
// of one process share a spell, so more rounds do not average it out; it is most of the
// spread between processes, and two runs that caught different spells differ by it.
// The probe (common/speed_probe.h) measures the spell beside every sample without being
// touched by any variant, so regressing on it removes what the spell explains:
//  - the interval is over the residuals (n - 2 degrees of freedom, the slope's
//    uncertainty included), narrower where the probe explains the spread, slightly wider
//    where it explains nothing;
//  - the estimate answers "the speedup at this machine speed", and two runs read at the
//    same reference compare like with like even when one of them caught slower spells.
// The line is fitted, never chosen: the adjustment applies by a fixed rule (enough
// processes, some spread of speed), never because it narrowed an interval, so a compare's
// false alarms stay at alpha (speed_adjusted_test.cc measures them).
#pragma once

#include <string>
#include <vector>

#include "stats/speedup.h"

namespace trickbench {
namespace stats {

// Fewer processes leave too few degrees of freedom after the slope (n - 2).
inline constexpr int kSpeedAdjustMinProcesses = 6;

struct SpeedAdjusted {
  // The speedup at the reference speed: speedup, low/high, log_se, dof (processes - 2),
  // the t test's p_value, half_width and imprecise; method "speed_adjusted". The
  // counts and the sds are as measured; between_sd is the residual sd.
  Speedup speedup;
  bool adjusted = false;  // false: too few processes or no spread of speed (see `why_not`)
  std::string why_not;
  double slope = 0;       // change of the log speedup per unit of log probe time
  double mean_speed = 0;  // the processes' mean log probe time
};

// log_ratios: one vector per process (its rounds' log(baseline / variant)); log_probe:
// that process's median log probe time, same length. Processes with no round are left
// out, like EstimateSpeedup does. Not adjusted (adjusted false, `speedup` all default)
// when fewer than kSpeedAdjustMinProcesses processes have rounds or the probes do not
// differ. Throws std::invalid_argument when the lengths differ, a value is not finite,
// or confidence is not in (0, 1).
SpeedAdjusted AtReferenceSpeed(const std::vector<std::vector<double>>& log_ratios,
                               const std::vector<double>& log_probe, double reference,
                               double confidence = 0.95, double imprecise_half_width = 0.10);

}  // namespace stats
}  // namespace trickbench
