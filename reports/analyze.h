// Claims, statistics and verdicts: what a trick's measurements say about its claim.
//
//   Trick t = ...;        // raw fields filled by a loader (load.h, report_json.h)
//   Analyze(&t);          // summaries, effects against the baselines, verdicts
//   if (t.verdict == Verdict::kInconclusive) ...   // t.verdict_detail says why
//
// The rules are reports/SCHEMA.md sections 4 and 5; every report states the settings
// below (report.json "statistics"), so a reader can check a verdict by hand.
#pragma once

#include <string>

#include "reports/report.h"

namespace trickbench {
namespace reports {

// The statistical settings every report states (and SCHEMA.md explains).
inline constexpr double kAlpha = 0.05;           // U test level; CI is 1 - alpha
inline constexpr double kNoiseThreshold = 0.10;  // relative IQR above this = noisy
inline constexpr double kNoEffectBand = 0.05;    // |speedup - 1| within 5 % = no effect
inline constexpr int kMaxRepetitionsAdvice = 1000;

// Which parts of a claim a verdict judges (see SCHEMA.md "Claims"): memory when the
// claim speaks of memory or size, time when it speaks of speed or time, or when it
// names neither; a claim that expects a slowdown is not judged on time.
void ClassifyClaim(const std::string& claim, bool* time, bool* memory);

// Statistics, effects and verdicts of a trick from its variants and outcome. Idempotent:
// every derived field is recomputed.
void Analyze(Trick* trick);

}  // namespace reports
}  // namespace trickbench
