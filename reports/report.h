// The trickbench report model: a run's tricks, their variants' samples and checks, and
// each optimized variant's effect against its baseline with a verdict on the claim.
//
//   Report report = MergeRun("results/run-20260101-120000");  // reports/load.h
//   for (const TrickReport& t : report.tricks)
//     for (const VariantEffect& e : t.effects)
//       std::cout << t.id << " " << SettingName(e.case_name, e.variant) << ": "
//                 << VerdictName(e.verdict) << "\n";
//
// Plain data. Who fills what: the loaders (load.h, report_json.h) fill the raw fields
// (samples, checks, outcome); Analyze (analyze.h) derives statistics, effects and
// verdicts from them, so a report is self-consistent whatever file it came from. The
// JSON form is reports/SCHEMA.md section 3 (report_json.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/result_file.h"
#include "stats/speedup.h"
#include "stats/summary.h"
#include "results/run_index.h"
#include "results/status.h"

namespace trickbench {
namespace reports {

// A setting's verdict on the claim, and a trick's over its settings; kPartly (a trick
// only): it holds in some settings the claim applies to and not in others.
enum class Verdict { kHolds, kDoesNotHold, kInconclusive, kNotApplicable, kPartly };
std::string VerdictName(Verdict v);  // "holds", "does not hold here", ...

// How one measured setting compares with one claimed effect (SCHEMA.md section 5).
enum class Grade {
  kHolds,               // the interval lies in the claimed range or above it
  kSmallerThanClaimed,  // a material effect in the claimed direction, below the range
  kLargerThanClaimed,   // a cost (a claimed slowdown) above the claimed bound
  kNoEffect,            // within the +-5 % band
  kOpposite,            // material, the other way
  kImprecise,           // too wide to say (half-width above 10 %)
  kNotSettled,          // precise, but straddles the claimed range's edge or the band's
  kNotApplicable,       // not measured here, or the claim's figure is for another device
};
std::string GradeName(Grade g);  // "holds", "smaller than claimed", ...
Verdict VerdictOf(Grade g);      // holds; does not hold; inconclusive; not applicable

// One claimed effect graded in one setting.
struct ClaimGrade {
  results::Expectation expectation;
  std::string claimed;   // "1.3-4x faster (cuda)"
  std::string measured;  // "1.02x [0.98x, 1.06x]" or "12.0 MiB -> 8.0 MiB (-33.3%)"
  Grade grade = Grade::kNotApplicable;
  std::string detail;  // why this grade
};

struct Variant {
  std::string case_name, name;
  bool baseline = false;
  // Raw. Every sample's ns per iteration, pooled over the processes in process order:
  // one per round.
  std::vector<double> samples_ns;
  // Raw, per process (in process order): the median of that process's samples. The A/B
  // compare pairs process k of the old build with process k of the new one.
  std::vector<double> process_medians_ns;
  // Raw, a non-baseline variant: per process, per round log(baseline ns / this variant's
  // ns) (results::CaseRounds::LogRatios). Empty for a baseline. The speedup and its
  // interval come from these.
  std::vector<std::vector<double>> log_ratios;
  // Raw, a non-baseline variant: per process, beside log_ratios, the median probe_ns of
  // this variant's samples (common/speed_probe.h: how fast the machine ran in that
  // process); 0 for a process whose file predates the probe. Compare reads both runs at
  // one machine speed with it (stats/speed_adjusted.h).
  std::vector<double> process_probe_ns;
  // Raw, per process (in process order): the iterations per sample this variant was
  // timed with (results::CaseRounds::iterations). run_all's later processes use process
  // 1's, so a run has one count; compare reads two runs as like for like only where
  // their counts agree (harness/rounds.h says why). Empty in reports from before it.
  std::vector<int64_t> process_iterations;
  // Raw: mean minor page faults per iteration and mean involuntary context switches per
  // sample, over every process: an allocation-heavy or preempted variant.
  double faults_per_iteration = 0, switches_per_sample = 0;
  // Raw: mean host time issuing one iteration (RoundSample::host_ns_per_iteration); 0
  // when not recorded. Beside the device time on CUDA: host-bound when about equal.
  double host_ns_per_iteration = 0;
  // Summary of samples_ns (all zero when not timed).
  stats::Summary summary;
  // Raw: the record's check of this variant (process 1's, or the deciding process's):
  // equivalence, in effect, memory, the trick's and the device meter's counters.
  results::VariantCheck check;
  // Raw, per process (in process order): the checks' peak memory, the CPU meter's and
  // the CUDA device's (cuda_peak_allocated_bytes; NaN where not recorded). Where threads
  // allocate the peak is not one number, so memory is graded over these, like time.
  std::vector<double> process_peak_bytes, process_device_peak_bytes;
};

// The effect of one optimized variant against its case's baseline: time and memory,
// and the verdict on the trick's claim in this setting. A *setting*, in the report, the
// compare and the noise study, is this pair: a case and one of its optimized variants
// (the harness's trickbench::Instance is one variant's instance, baselines included).
// (report.json: "comparisons".)
struct VariantEffect {
  std::string case_name, variant, baseline;
  bool timed = false;
  // When timed: stats::EstimateSpeedup over the processes (SCHEMA.md section 4): the
  // speedup, its interval, standard error (what a compare of two runs needs), method,
  // and time.imprecise (half-width above kImpreciseHalfWidth: a verdict only beyond
  // +-5 %). Held as the statistics compute it, so compare reads the same object.
  stats::Speedup time;
  bool significant = false;  // time.p_value below kAlpha
  // For an inconclusive result: what would settle it (stats::ToSettle).
  std::optional<int> processes_to_settle, rounds_to_settle;
  int64_t peak_bytes_baseline = 0, peak_bytes_variant = 0;
  std::optional<double> memory_change;  // (variant - baseline) / baseline; none if baseline 0
  // Every claimed effect that concerns this setting, graded; the verdict combines them
  // (any "does not hold" grade wins, then any inconclusive one).
  std::vector<ClaimGrade> grades;
  Verdict verdict = Verdict::kNotApplicable;
  std::string verdict_detail;
};

// One trick's part of the report: what its processes' records say, merged, and its
// verdict. (Not trickbench::Trick, the class a trick file derives from.)
struct TrickReport {
  std::string id, category, source, claim;
  // The claim as data (the result file's expectations); a file from before they were
  // recorded gets them from the claim's words (analyze.h ClaimFromWords).
  std::vector<results::Expectation> expectations;
  bool expectations_from_words = false;
  // The source recorded expectations (possibly none: a reproducibility claim). False
  // for files from before they were recorded, whose claim's words are read instead.
  bool has_expectations_field = false;
  bool claims_time = false, claims_memory = false;  // some expectation is on time / memory
  // What the run says: the index's outcome, or for a lone result file its status
  // (checked counts as ok); reason is why, for anything but ok.
  results::RunOutcome outcome = results::RunOutcome::kOk;
  std::string reason;
  std::string device;
  // Processes merged (their result files) and rounds per case in each.
  int processes = 0, rounds = 0;
  // Raw: the merged processes' wall times (the index's), in process order: what a
  // process of this trick costs, for advice given as time. Empty for a lone result file
  // and for reports from before they were kept.
  std::vector<double> process_seconds;
  // Processes of this trick that run_all ran but the report left out, and why
  // ("process 3: timeout: ..."; the trick's numbers come from the others), and the
  // environment it set itself (run_environment.h).
  std::vector<std::string> process_notes;
  int threads = 0;
  double min_time = 0;
  uint64_t seed = 0;
  results::Tolerance tolerance;
  std::string reproduced_variant;
  std::optional<results::Reproducibility> reproducibility;  // the record's
  std::vector<Variant> variants;
  std::vector<VariantEffect> effects;
  Verdict verdict = Verdict::kNotApplicable;
  std::string verdict_detail;
  bool imprecise = false;  // some setting's interval is imprecise
};

struct Report {
  std::string source;  // run folder name or file name the report was built from
  std::string started, finished;
  bool complete = true;
  std::vector<std::string> forwarded_flags;
  int processes = 1;       // processes per trick run_all was asked for
  double run_seconds = 0;  // the trick processes' wall time, summed
  // Where that time went: the phases of the processes that recorded them (the index's
  // phase_seconds), summed; none for a run from before they were recorded. What the
  // rest of run_seconds holds (start, exit, processes that recorded nothing) is
  // run_seconds less their sum: TimeSplitLine (render.h) says it.
  std::optional<results::PhaseSeconds> phase_seconds;
  results::MachineState machine;         // the index's; -1 where unknown
  std::optional<results::AbSession> ab;  // set when the run was one side of run_all --ab
  // The index's, for a budgeted run: why process counts differ per trick (BudgetLine).
  std::optional<results::RunBudget> budget;
  std::map<std::string, std::string> environment;
  std::vector<std::string> environment_notes;  // tricks whose context disagrees
  std::vector<TrickReport> tricks;
};

// Verdicts per trick; timed settings and how many of them are imprecise.
struct ReportCounts {
  int tricks = 0, holds = 0, partly = 0, does_not_hold = 0, inconclusive = 0, not_applicable = 0;
  int settings = 0, imprecise = 0;
};
ReportCounts Count(const Report& report);

// How a setting is named to people: "large/optimized", or "optimized" for a one-case trick.
std::string SettingName(const std::string& case_name, const std::string& variant);

}  // namespace reports
}  // namespace trickbench
