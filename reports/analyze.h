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
#include <vector>

#include "reports/report.h"
#include "stats/speedup.h"

namespace trickbench {
namespace reports {

// The statistical settings every report states (and SCHEMA.md explains).
inline constexpr double kAlpha = 0.05;               // test level; intervals are 1 - alpha
inline constexpr double kImpreciseHalfWidth = 0.10;  // relative half-width above = imprecise
inline constexpr double kNoEffectBand = 0.05;        // |speedup - 1| within 5 % = no effect
inline constexpr int kMaxRepetitionsAdvice = 1000;   // schema 1 advice
// Shown beside a variant's times when reached: it allocates fresh pages (whose faults
// cost more than many kernels) or it was preempted during most samples.
inline constexpr double kManyFaultsPerIteration = 1;
inline constexpr double kManySwitchesPerSample = 1;

// Which parts of a claim a verdict judges (see SCHEMA.md "Claims"): memory when the
// claim speaks of memory or size, time when it speaks of speed or time, or when it
// names neither; a claim that expects a slowdown is not judged on time.
void ClassifyClaim(const std::string& claim, bool* time, bool* memory);
// The expectations of a claim with no recorded ones (files before schema 2 recorded
// them): from ClassifyClaim, no figures, no device.
std::vector<results::Expectation> ClaimFromWords(const std::string& claim);
// How a claimed effect reads: "1.30-4.00x faster on cuda", "37% less peak memory".
std::string ClaimedText(const results::Expectation& e);
// The speedups (baseline / variant time) a time claim states, read as the grading rules
// read it (SCHEMA.md section 5: no claimed figure means beyond the no-effect band; a
// cost is the inverse factor): [low, high], 0 and infinity as open ends. Drawn beside
// the measured interval. (A speedup above a claimed upper end still holds.)
struct SpeedupRange {
  double low = 0, high = 0;
};
SpeedupRange ClaimedSpeedups(const results::Expectation& time_claim);

// Statistics, effects and verdicts of a trick from its variants and outcome. Idempotent:
// every derived field is recomputed. The speedups' bootstraps are seeded from the trick's
// seed, id, case and variant, so re-rendering a run gives the same report.
void Analyze(Trick* trick);

// A timed effect as stats::Speedup, for stats::CompareSpeedups. Schema 1 effects get
// the standard error their Hodges-Lehmann interval implies (half its log width over
// the normal quantile) and repetitions - 1 degrees of freedom.
stats::Speedup SpeedupOf(const VariantEffect& effect);

}  // namespace reports
}  // namespace trickbench
