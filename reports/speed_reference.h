// Both sides of a compared setting read at one machine speed: the two runs' process values
// regressed, with one slope, on how fast the machine ran in each process (the speed probe
// beside every sample), and the new run read at the old run's mean probe time.
//
//   const ComparedSides sides = AtOneSpeed(old_trick, old_effect, new_trick, new_effect);
//   stats::CompareSpeedups(sides.old_side, sides.new_side);
//   // sides.reference_probe_ns: set when read at one speed; else as_measured_because says why
//
// Why (stats/speed_adjusted.h has the measurements): on a shared VM the CPU runs in spells
// of seconds at up to 2x its usual speed for branchy code, and a dispatch-bound trick's
// speedup follows the spell. Two runs that caught different spells then differ though
// the code did not, and the spread between one run's processes is mostly spells. Read at
// one speed, the two runs compare like with like, over intervals that leave out what the
// spells explain. Both sides or neither: a setting read at a speed on one side only would
// compare two different quantities. The old side is then its plain mean over processes
// (its own speed) and the new side carries the slope's uncertainty, so the sides'
// variances add up to the change's.
#pragma once

#include <optional>
#include <string>

#include "reports/report.h"
#include "stats/speedup.h"

namespace trickbench {
namespace reports {

struct ComparedSides {
  stats::Speedup old_side, new_side;         // what the test reads (before any session part)
  std::optional<double> reference_probe_ns;  // set: both read at this probe time (the old run's)
  std::string as_measured_because;           // set when reference_probe_ns is not
};

// The effects' own speedups (VariantEffect::time) when either run lacks the probe in a
// process (a file from before it), or the two have too few processes for the fit
// (stats::kSpeedAdjustMinProcesses over both, kSpeedAdjustMinPerRun in each), or the
// probes within the runs do not differ.
ComparedSides AtOneSpeed(const TrickReport& old_trick, const VariantEffect& old_effect,
                         const TrickReport& new_trick, const VariantEffect& new_effect);

}  // namespace reports
}  // namespace trickbench
