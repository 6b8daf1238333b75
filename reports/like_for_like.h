// Whether two runs timed a setting alike: the same iterations per sample for its
// baseline and its variant. Where the counts differ, compare does not call a setting
// faster or slower (unknown instead), keeps "unchanged" (the change, the count's effect
// included, is inside the margin), and says how to rerun it like for like.
//
//   const std::string why = UnlikeIterations(old_trick, old_effect, new_trick, new_effect);
//   // "" alike (or not recorded); else e.g. "baseline 2 -> 1 iterations per sample"
//
// Why not a change: for some workloads the time per iteration depends on how many run
// back to back (harness/rounds.h), and a run's processes all time process 1's count,
// so nothing in either run's interval holds the count's effect. Of 19 settings whose
// counts differed between two default runs here, 2 would have been false alarms
// (low_precision_reductions fp16 +25 %, fuse_pointwise reused +16 %). A real slowdown
// changes the count too (calibration fits a sample to --min_time), so dropping such
// settings would hide the regressions a gate is for; "unknown", with the rerun that
// settles it (run_all --iterations_from=OLD_RUN), hides nothing. Why "unchanged"
// stands: it says the measured change, whatever the count did, is inside the margin
// at the test's own error rate; 10 of those 19 settings were.
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
