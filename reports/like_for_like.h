// Whether two runs timed a setting alike: the same iterations per sample for its
// baseline and its variant. Compare calls a setting whose counts differ "unknown"
// whatever its test says, and says how to rerun it like for like.
//
//   const std::string why = UnlikeIterations(old_trick, old_effect, new_trick, new_effect);
//   // "" alike (or not recorded); else e.g. "baseline 2 -> 1 iterations per sample"
//
// Why not test it anyway: for some workloads the time per iteration depends on how many
// run back to back (harness/rounds.h), and a run's processes all time process 1's
// count, so nothing in either run's interval holds the effect of the count. Two default
// runs here that drew counts 1 and 2 for tensor_core_multiples vocab33708_fp32's variant
// would differ by about 40 % with intervals of a few percent: a false alarm. And a real
// slowdown changes the count too (calibration fits a sample to --min_time), so dropping
// such settings silently would hide exactly the regressions a gate is for; "unknown",
// with the rerun that settles it (run_all --iterations_from=OLD_RUN), hides nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report.h"

namespace trickbench {
namespace reports {

// The count every process timed with; 0 when none is recorded or the processes differ
// (a run from before run_all shared process 1's counts: its intervals hold the counts'
// effect, so there is nothing to check).
int64_t OneCount(const std::vector<int64_t>& process_iterations);

// "" when the two runs timed the setting's baseline and variant with the same counts,
// or either run has no one count for them; else which differ, old -> new, e.g.
// "baseline 2 -> 1, aligned8 1 -> 1 iterations per sample".
std::string UnlikeIterations(const TrickReport& old_trick, const VariantEffect& old_effect,
                             const TrickReport& new_trick, const VariantEffect& new_effect);

}  // namespace reports
}  // namespace trickbench
