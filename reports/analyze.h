// Statistics and verdicts: what a trick's measurements say about its claim (claims.h
// reads the claims, thresholds.h holds the thresholds).
//
//   TrickReport t = ...;  // raw fields filled by a loader (load.h, report_json.h)
//   Analyze(&t);          // summaries, effects against the baselines, verdicts
//   if (t.verdict == Verdict::kInconclusive) ...   // t.verdict_detail says why
//
// The rules are reports/SCHEMA.md sections 4 and 5; every report states the thresholds
// below (report.json "statistics"), so a reader can check a verdict by hand.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/claims.h"
#include "reports/report.h"
#include "reports/thresholds.h"
#include "stats/speedup.h"

namespace trickbench {
namespace reports {

// Statistics, effects and verdicts of a trick from its variants and outcome. Idempotent:
// every derived field is recomputed. The speedups' bootstraps are seeded from the trick's
// seed, id, case and variant, so re-rendering a run gives the same report.
void Analyze(TrickReport* trick);

// What `processes` processes of `rounds` rounds of one case would take at this run's
// pace, in seconds: each process's fixed part (start, set-up, warm-up, checks: the
// median process's wall time less its timed rounds) plus its rounds, a round being one
// sample of about min_time per variant of the case. None without the processes' wall
// times (a lone result file, a report from before they were kept).
std::optional<double> SecondsAtThisPace(const TrickReport& t, const std::string& case_name,
                                        int processes, int rounds);

}  // namespace reports
}  // namespace trickbench
