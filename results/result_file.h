// The per-trick result file a trick binary writes (<id>.json): Google Benchmark's JSON,
// kept as it is so that its compare.py reads it, plus a "trickbench" object that says
// what was measured, how, and whether the checks passed. Format: reports/SCHEMA.md
// section 1.
//
//   results::ResultFile file;
//   file.context = gb_json["context"];             // Google Benchmark's, plus ours
//   file.benchmarks = gb_json["benchmarks"];
//   file.trickbench.id = "no_grad_inference";
//   file.trickbench.status = results::ResultStatus::kOk;
//   ...
//   std::string error;
//   if (!results::WriteResultFile(path, file, &error)) ...      // atomically
//
//   const results::ResultFile back = results::ReadResultFile(path);   // or InputError
//   for (const auto& [benchmark, ns] : results::SamplesNs(back.benchmarks, path)) ...
//
// FromJson checks everything a reader relies on and names the file and the field in
// its error ("x.json: trickbench.checks[0].variants[1].peak_bytes: expected an
// integer, got a string"). It accepts files written before fields were added (marked
// "optional" in SCHEMA.md): absent, they read as zero, false or "".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/checked_json.h"
#include "results/expectation.h"
#include "results/status.h"
#include "results/tolerance.h"

namespace trickbench {
namespace results {

// The one definition of the result file's schema version. 2 added the paired rounds
// (trickbench.rounds) and settings.rounds, process and plant; version 1 files (Google
// Benchmark repetitions, no rounds) are still read, with `rounds` empty.
inline constexpr int kResultSchemaVersion = 2;
inline constexpr int kOldestReadableResultSchemaVersion = 1;

// How the trick was run (trickbench.settings).
struct Settings {
  int threads = 0;  // intra-op threads
  int repetitions = 0;
  double min_time = 0;  // seconds per repetition
  uint64_t seed = 0;
  int check_steps = 0;               // optional: 0 when not recorded
  bool random_interleaving = false;  // optional
  std::string timing;                // optional: "wall_clock", "cuda_events"; "" when not recorded
  int rounds = 0;    // optional (schema 2): paired rounds per case; 0 in version 1 files
  int process = 0;   // optional: which of run_all's processes for this trick (1-based); 0 alone
  // optional: a planted slowdown (the noise study): `plant_variant`'s samples were made
  // `plant_factor` times slower by busy-waiting. Empty variant, factor 1: none.
  std::string plant_variant;
  double plant_factor = 1;
  // What the timing backend adds (the CUDA one: flush_l2), written after `timing`.
  // Values are JSON scalars; readers keep whatever else they find here.
  Json backend = Json::object();
};

// One variant's checks (trickbench.checks[].variants[]).
struct VariantCheck {
  std::string name;
  std::string benchmark;  // the Google Benchmark name carrying its samples: how variants pair up
  bool equivalent = false;
  // Not finite (NaN against a number) when written as null: read as infinity.
  double max_abs_diff = 0;
  double max_rel_diff = 0;
  std::string equivalence_detail;
  bool active = false;
  std::string inactive_reason;
  int64_t setup_bytes = 0;  // optional
  int64_t peak_bytes = 0;
  int64_t run_peak_bytes = 0;
  int64_t allocations = 0;
  // The trick's own figures and the device meter's; a value that was not finite reads
  // as NaN. Optional.
  std::map<std::string, double> counters;
};

struct CaseChecks {
  std::string case_name;  // "" for a trick with one case
  std::vector<VariantCheck> variants;  // the first is the case's baseline
};

// Two seeded runs of one case of the reproduced variant under the determinism guard.
struct ReproducibilityCase {
  std::string case_name;
  bool bitwise_reproducible = false;
  std::string fingerprint;       // hex digest of the first run ("" when it threw)
  std::string first_difference;  // where the runs differ ("" when they agree)
  std::string error;             // what the run threw ("" when it did not)
};

struct Reproducibility {
  bool checked = false;
  std::string variant;  // the reproduced variant; "" when not checked
  bool bitwise_reproducible = false;
  std::string fingerprint;  // the first case's
  std::string detail;       // why not, or why not checked
  std::vector<ReproducibilityCase> cases;  // empty when not checked
};

// One timed sample of a paired round (trickbench.rounds[].samples[]): one variant's
// `iterations` back-to-back calls, with what the OS says happened meanwhile.
struct RoundSample {
  int round = 0;     // 0-based
  int position = 0;  // 0-based place in the round's order
  int variant = 0;   // index into TrickResult::variants (0 = baseline)
  double start_seconds = 0;   // since the case's first round began
  int64_t iterations = 0;
  double ns_per_iteration = 0;      // the timing backend's time (CUDA: device time)
  double cpu_ns_per_iteration = 0;  // process CPU time (every thread) per iteration
  int64_t involuntary_switches = 0;
  int64_t voluntary_switches = 0;
  double minor_faults_per_iteration = 0;
  double steal_seconds = 0;  // machine-wide, during the sample
};

// A case's rounds: in each round every variant once, back to back, in the order
// stats::ScheduleRounds(variants, rounds, order_seed) draws.
struct CaseRounds {
  std::string case_name;
  uint64_t order_seed = 0;
  std::vector<int64_t> iterations;   // per variant: calibrated once, used in every round
  std::vector<RoundSample> samples;  // in the order they ran

  // Per round, log(baseline ns / `variant` ns): > 0 when the variant is faster. Rounds
  // missing either sample are left out.
  std::vector<double> LogRatios(int variant) const;
  // The samples of one variant, in round order.
  std::vector<const RoundSample*> Of(int variant) const;
};

// The JSON of a claim (trickbench.expectations[], SCHEMA.md "Claims"; expectation.h).
// ExpectationsFromJson reads the array `object`.expectations at `path` (the result
// file's trickbench object, a report's trick), each element checked.
std::vector<Expectation> ExpectationsFromJson(const Fields& f, const Json& object,
                                              const std::string& path);
Json ToJson(const Expectation& e);

// The "trickbench" object.
struct TrickResult {
  std::string id, category, source, claim;
  // Optional (absent before claims were data): the claim as data. A file without it is
  // graded by the words of `claim` (reports/analyze.h ClassifyClaim), with no figures.
  std::vector<Expectation> expectations;
  bool has_expectations = false;  // the file had the field (even empty)
  bool needs_cuda = false;  // optional
  ResultStatus status = ResultStatus::kError;
  std::string reason;  // why, for anything but ok
  std::string device;  // "cpu", "cuda:0"
  std::string baseline;
  std::vector<std::string> variants;  // baseline first
  std::vector<std::string> cases;     // {""} for a trick with one case
  std::string reproduced_variant;
  Tolerance tolerance;
  Settings settings;
  bool nvtx = false;  // optional: NVTX ranges were emitted
  // Present when the checks ran (always for ok, checked and invalid).
  std::optional<std::vector<CaseChecks>> checks;
  std::optional<Reproducibility> reproducibility;
  // Schema 2, status ok: one entry per case, in `cases` order. Empty in version 1 files,
  // whose samples are the Google Benchmark repetitions alone.
  std::vector<CaseRounds> rounds;
};

struct ResultFile {
  Json context = Json::object();    // Google Benchmark's context plus harness/context.h's
  Json benchmarks = Json::array();  // Google Benchmark's entries, as it wrote them
  TrickResult trickbench;

  Json ToJson() const;
  static ResultFile FromJson(const Json& j, const std::string& file);
};

// The raw samples: every run_type "iteration" entry of `benchmarks` is one repetition;
// its real_time in ns, per benchmark (run_name, else name), in file order. Entries
// with error_occurred are not samples. InputError for a malformed entry.
std::map<std::string, std::vector<double>> SamplesNs(const Json& benchmarks,
                                                     const std::string& file);

// The context entries that describe the environment (torch_version, device, blas,
// ...), as strings: everything but what describes one run (executable, date, caches,
// load_avg, trickbench_id). Two results are comparable when these agree.
std::map<std::string, std::string> Environment(const ResultFile& result);

bool WriteResultFile(const std::string& path, const ResultFile& result, std::string* error);
ResultFile ReadResultFile(const std::string& path);

}  // namespace results
}  // namespace trickbench
