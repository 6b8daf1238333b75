// The trickbench report model: a run's tricks, their variants' samples and checks, and
// each optimized variant's effect against its baseline with a verdict on the claim.
//
//   Report report = MergeRun("results/run-20260101-120000");  // reports/load.h
//   for (const Trick& t : report.tricks)
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

#include "results/status.h"

namespace trickbench {
namespace reports {

enum class Verdict { kHolds, kDoesNotHold, kInconclusive, kNotApplicable };
std::string VerdictName(Verdict v);  // "holds", "does not hold here", ...

struct Variant {
  std::string case_name, name, benchmark;
  bool baseline = false;
  std::vector<double> samples_ns;  // one per repetition (Google Benchmark "iteration" runs)
  // Summary of samples_ns (empty when not timed).
  double median = 0, q1 = 0, q3 = 0, iqr = 0, mean = 0, stddev = 0, cv = 0, relative_iqr = 0;
  bool noisy = false;
  // From the checks (the result file's trickbench.checks).
  int64_t peak_bytes = 0, run_peak_bytes = 0, allocations = 0;
  bool equivalent = false, active = false;
  double max_abs_diff = 0, max_rel_diff = 0;
  std::string equivalence_detail, inactive_reason;
};

// The effect of one optimized variant against its case's baseline: time and memory,
// and the verdict on the trick's claim in this setting. (report.json: "comparisons".)
struct VariantEffect {
  std::string case_name, variant, baseline;
  bool timed = false;
  double speedup = 0, ci_low = 0, ci_high = 0, p_value = 1;  // speedup = base/variant medians
  bool significant = false, noisy = false;
  int64_t peak_bytes_baseline = 0, peak_bytes_variant = 0;
  std::optional<double> memory_change;  // (variant - baseline) / baseline; none if baseline 0
  Verdict verdict = Verdict::kNotApplicable;
  std::string verdict_detail;
  std::optional<int> repetitions_to_settle;  // for inconclusive time results
};

struct Reproducibility {
  bool checked = false, bitwise_reproducible = false;
  std::string fingerprint, detail;
};

struct Trick {
  std::string id, category, source, claim;
  bool claims_time = false, claims_memory = false;
  // What the run says: the index's outcome, or for a lone result file its status
  // (checked counts as ok); reason is why, for anything but ok.
  results::RunOutcome outcome = results::RunOutcome::kOk;
  std::string reason;
  std::string device;
  int threads = 0, repetitions = 0;
  double min_time = 0;
  uint64_t seed = 0;
  double rtol = 0, atol = 0;
  bool bitwise = false;
  std::string reproduced_variant;
  std::optional<Reproducibility> reproducibility;
  std::vector<Variant> variants;
  std::vector<VariantEffect> effects;
  Verdict verdict = Verdict::kNotApplicable;
  std::string verdict_detail;
  bool noisy = false;
};

struct Report {
  std::string source;  // run folder name or file name the report was built from
  std::string started, finished;
  bool complete = true;
  std::vector<std::string> forwarded_flags;
  std::map<std::string, std::string> environment;
  std::vector<std::string> environment_notes;  // tricks whose context disagrees
  std::vector<Trick> tricks;
};

struct ReportCounts {
  int tricks = 0, holds = 0, does_not_hold = 0, inconclusive = 0, not_applicable = 0, noisy = 0;
};
ReportCounts Count(const Report& report);

// Environment keys that name the machine rather than describe its setup (host name,
// clock): ignored when environments are compared.
bool DescribesOneHost(const std::string& key);

// How a setting is named to people: "large/optimized", or "optimized" for a one-case trick.
std::string SettingName(const std::string& case_name, const std::string& variant);

}  // namespace reports
}  // namespace trickbench
