// The trickbench report: the model, its JSON form (reports/SCHEMA.md), the loaders for
// per-trick result files, run-all's index and report files, and the merge of a run.
//
//   using namespace trickbench::reports;
//   Report report = MergeRun("results/run-20260101-120000");    // index.json + <id>.json
//   WriteReportFiles(report, "results/run-...", &paths);        // report.{json,md,html}
//   Report again = LoadReportOrResult("results/run-.../report.json");
//
// Every loader checks what it reads and throws InputError naming the file and the
// field ("x.json: benchmarks[3].real_time: negative time -1"); nothing is written
// until every input has been read and every output rendered.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace trickbench {
namespace reports {

inline constexpr int kReportSchemaVersion = 1;
inline constexpr int kResultSchemaVersion = 1;  // harness/runner.h kResultSchemaVersion
inline constexpr int kIndexSchemaVersion = 1;
inline constexpr char kReportKind[] = "trickbench-report";
inline constexpr char kIndexKind[] = "trickbench-run-index";

// The statistical settings every report states (and SCHEMA.md explains).
inline constexpr double kAlpha = 0.05;           // U test level; CI is 1 - alpha
inline constexpr double kNoiseThreshold = 0.10;  // relative IQR above this = noisy
inline constexpr double kNoEffectBand = 0.05;    // |speedup - 1| within 5 % = no effect
inline constexpr int kMaxRepetitionsAdvice = 1000;

// Bad input: the file, the field (JSON path, "" for the whole file) and what is wrong.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string field, const std::string& problem);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_, field_;
};

enum class Verdict { kHolds, kDoesNotHold, kInconclusive, kNotApplicable };
std::string VerdictName(Verdict v);  // "holds", "does not hold here", ...
Verdict ParseVerdict(const std::string& s);  // throws std::invalid_argument

struct Variant {
  std::string case_name, name, benchmark;
  bool baseline = false;
  std::vector<double> samples_ns;  // one per repetition (Google Benchmark "iteration" runs)
  // Summary of samples_ns (empty when not timed).
  double median = 0, q1 = 0, q3 = 0, iqr = 0, mean = 0, stddev = 0, cv = 0, relative_iqr = 0;
  bool noisy = false;
  // From the checks (harness/runner.cc ChecksJson).
  int64_t peak_bytes = 0, run_peak_bytes = 0, allocations = 0;
  bool equivalent = false, active = false;
  double max_abs_diff = 0, max_rel_diff = 0;
  std::string equivalence_detail, inactive_reason;
};

// One optimized variant against its case's baseline.
struct Comparison {
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
  std::string outcome, reason;  // ok, skipped, invalid, error, crashed, timeout, failed
  std::string device;
  int threads = 0, repetitions = 0;
  double min_time = 0;
  uint64_t seed = 0;
  double rtol = 0, atol = 0;
  bool bitwise = false;
  std::string reproduced_variant;
  std::optional<Reproducibility> reproducibility;
  std::vector<Variant> variants;
  std::vector<Comparison> comparisons;
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

// Which parts of a claim a verdict judges (see SCHEMA.md "Claims"): memory when the
// claim speaks of memory or size, time when it speaks of speed or time, or when it
// names neither; a claim that expects a slowdown is not judged on time.
void ClassifyClaim(const std::string& claim, bool* time, bool* memory);

// Statistics, comparisons and verdicts of a trick from its variants and outcome.
void Analyze(Trick* trick);

// Parsing. `file` names the input in errors.
nlohmann::ordered_json ParseJsonText(const std::string& text, const std::string& file);
nlohmann::ordered_json ReadJsonFile(const std::string& path);

// A per-trick result file (Google Benchmark JSON + "trickbench"); outcome is its status.
Trick TrickFromResult(const nlohmann::ordered_json& result, const std::string& file,
                      std::map<std::string, std::string>* environment);

// What a JSON document is: "report", "result", "index", or throws InputError.
std::string KindOf(const nlohmann::ordered_json& j, const std::string& file);

// run_dir/index.json and the result files it names.
Report MergeRun(const std::string& run_dir);

// A report.json, or a per-trick result file made into a one-trick report.
// *kind (optional) gets "report" or "result".
Report LoadReportOrResult(const std::string& path, std::string* kind = nullptr);

nlohmann::ordered_json ReportToJson(const Report& report);
Report ReportFromJson(const nlohmann::ordered_json& j, const std::string& file);

struct ReportCounts {
  int tricks = 0, holds = 0, does_not_hold = 0, inconclusive = 0, not_applicable = 0, noisy = 0;
};
ReportCounts Count(const Report& report);

// Number formatting shared by the renderers and compare.
std::string FormatNs(double ns);            // "15.3 ms"
std::string FormatBytes(int64_t bytes);     // "12.6 MiB"
std::string FormatFixed(double v, int digits);
std::string FormatPercent(double fraction, int digits = 1, bool sign = true);  // "+12.0%"
std::string FormatP(double p);               // "0.0004", "<0.0001"

}  // namespace reports
}  // namespace trickbench
