// Comparing two reports (or two per-trick result files), old -> new, with a decision
// per setting whose false alarms stay at alpha over the whole comparison.
//
//   const Report o = LoadReportOrResult("old/report.json"), n = LoadReportOrResult("new/report.json");
//   const ReportDiff diff = CompareReports(o, n, {/*alpha=*/0.05, /*min_effect=*/0.05});
//   // or, with this machine's noise study: CompareReports(o, n, rule, &parts)  (session_parts.h)
//   std::cout << doc::PrintMarkdown(DiffDocument(diff, /*fail_percent=*/10.0));  // compare_render.h
//   if (Regressions(diff, 10.0) > 0) return 1;   // --fail_on_regression=10
//
// What is tested, and why:
// - primary, per setting (trick, case, variant): the change of its speedup over its
//   baseline (stats::CompareSpeedups), which cancels the drift that hits both variants of
//   a run alike; Holm over all settings and three outcomes (stats::Decide): faster /
//   slower (corrected p < alpha and beyond min_effect), unchanged (two one-sided tests
//   at alpha: the 90 % interval inside +-min_effect), unknown (with the processes and
//   rounds that would settle it); with a noise study's session parts, each setting the
//   study measured has its between-session sd added to both sides first
//   (stats::WithSessionPart): two runs differ by two draws of what all processes of a
//   run share, which no interval over one run's processes holds; where both runs
//   recorded the speed probe, both sides are first read at one machine speed
//   (speed_reference.h): what the VM's speed spells do to a speedup is taken out of the
//   test, and runs that caught different spells compare like with like;
// - absolute times per timed variant (a case's variant, baselines included): two sessions differ by the machine's drift (20-40 %
//   here), which no test over one session's samples sees, so they are tested only when
//   the two reports are the two sides of one A/B session (run_all --ab: same seed, roles
//   old and new), over the pairs of processes (stats::ComparePaired), Holm over the
//   timed variants; otherwise shown, not tested, with a note;
// - environment and machine-state differences are named (load, steal, preemptions).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"
#include "reports/session_parts.h"
#include "stats/speedup.h"

namespace trickbench {
namespace reports {

// One setting's speedup over its baseline, old and new. change.ratio = new speedup /
// old speedup: above 1 the optimized variant gained on its baseline ("faster").
struct SpeedupChange {
  std::string trick, case_name, variant;
  stats::Speedup old_time, new_time;  // each side's VariantEffect::time, as measured
  // What the test read, before any session part: both sides at one machine speed when
  // both runs recorded the speed probe (speed_reference.h), else old_time and new_time.
  stats::Speedup old_side, new_side;
  std::optional<double>
      reference_probe_ns;           // set: both sides read at this (the old run's) probe time
  std::string as_measured_because;  // otherwise, why not
  // Set: the runs timed it with other iterations per sample (like_for_like.h); a test
  // that said faster or slower then says unknown, since the count may be what changed.
  std::string unlike_iterations;
  // The between-session sd (log scale) added to both sides before the test; unset when
  // compare had no noise study or the study did not measure this setting.
  std::optional<double> session_sd;
  std::string old_verdict, new_verdict;
  stats::Change change;
  // The smallest true change of the speedup this comparison detects with 80 % power at
  // alpha, before the correction (stats::MinimumDetectableEffect of the combined
  // standard error, on the smaller side's degrees of freedom): what the noise study reports.
  double minimum_detectable_effect = 0;
  // Unknown outcomes: what both sides would need (stats::ToSettle); unset when it is out
  // of reach.
  std::optional<int> processes_to_settle, rounds_to_settle;
  // Unknown outcomes whose session part alone leaves each side's interval wider than
  // min_effect / 2: no number of processes settles them, only a wider margin.
  bool beyond_processes = false;
  // What that costs, both sides together, each at its own run's pace (analyze.h
  // SecondsAtThisPace); unset when either report lacks its processes' wall times.
  std::optional<double> seconds_to_settle;
};

// One timed variant's absolute time (a variant of a case, baselines included).
struct TimeChange {
  std::string trick, case_name, variant;
  bool baseline = false;
  double old_median = 0, new_median = 0;
  int pairs = 0;  // processes paired (A/B session)
  // Tested (A/B session, at least two pairs): ratio = old time / new time, so above 1
  // is faster, as for speedups.
  std::optional<stats::Change> change;
};

struct EnvDifference {
  std::string key, old_value, new_value;
  bool incomparable = false;  // device, LibTorch, threads, BLAS, determinism, CUDA, CPU allocator
};

struct ReportDiff {
  std::string old_source, new_source;
  stats::DecisionRule rule;
  std::string noise_source;             // the noise study whose session parts were added ("" none)
  std::vector<SpeedupChange> speedups;  // the primary comparison, decided
  // Settings measured in one process on either side: their intervals leave out the
  // variation between processes, so their false alarms exceed alpha (said in the document).
  int one_process = 0;
  std::vector<TimeChange> times;
  bool same_session = false;  // old and new are the two sides of one A/B session
  std::string times_note;     // why absolute times are not tested ("" when they are)
  std::vector<std::string> only_old, only_new;
  std::vector<std::string> not_compared;  // "id: old outcome -> new outcome"
  std::vector<EnvDifference> environment;
  std::vector<std::string> machine;     // machine-state differences, named
  std::optional<double> geomean_ratio;  // geometric mean of new/old median time
};

// `parts`: a noise study's session parts of this machine (nullptr: none added).
ReportDiff CompareReports(const Report& old_report, const Report& new_report,
                          const stats::DecisionRule& rule = {},
                          const SessionParts* parts = nullptr);

// "" when the reports are the old and new sides of one A/B session; else why not.
std::string WhyNotOneSession(const Report& old_report, const Report& new_report);

// Outcomes "slower" (Holm-corrected) whose slowdown exceeds `percent` %: speedups that
// fell by more than that, and in an A/B session times that grew by more than that.
int Regressions(const ReportDiff& diff, double percent);

// Keys whose difference makes old and new numbers incomparable.
const std::vector<std::string>& IncomparableEnvironmentKeys();

}  // namespace reports
}  // namespace trickbench
