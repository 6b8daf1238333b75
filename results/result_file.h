// The measurement record: what one trick process measured (<id>.json), typed. The
// harness fills it, run_all and the reports read it, and every other format is a printer
// of it (Google Benchmark's JSON: gbench_export.h; the console summary:
// harness/summary.h; reports: reports/). Format: reports/SCHEMA.md section 1.
//
//   results::ResultFile file;
//   file.context["torch_version"] = "2.11.0";      // harness/context.h's entries
//   file.trickbench.id = "no_grad_inference";
//   file.trickbench.status = results::ResultStatus::kOk;
//   file.trickbench.rounds = ...;                    // the paired rounds: the samples
//   std::string error;
//   if (!results::WriteResultFile(path, file, &error)) ...      // atomically
//
//   const results::ResultFile back = results::ReadResultFile(path);   // or InputError
//   for (const results::CaseRounds& c : back.trickbench.rounds) c.LogRatios(1) ...
//
// Why the rounds are the only samples: until schema 3 the same samples were also
// written as Google Benchmark "iteration" entries, paired with the checks by name
// strings that nothing checked agreed. Now a sample is written once, and pairs with its
// variant by index.
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
#include "results/phases.h"
#include "results/status.h"
#include "results/tolerance.h"

namespace trickbench {
namespace results {

// The one definition of the result file's schema version. 2 added the paired rounds
// (trickbench.rounds) and settings.rounds, process and plant; 3 dropped the Google
// Benchmark entries (now an export beside the record), checks[].benchmark and
// settings.repetitions and random_interleaving, and added checks[].items_per_run and
// rounds[].samples.host_ns_per_iteration. A version 2 file is read (what 3 dropped is ignored); a version 1 file (repetitions, no
// rounds) is refused with what to do.
inline constexpr int kResultSchemaVersion = 3;
inline constexpr int kOldestReadableResultSchemaVersion = 2;

// How the trick was run (trickbench.settings).
struct Settings {
  int threads = 0;      // intra-op threads
  double min_time = 0;  // seconds per sample
  uint64_t seed = 0;
  int check_steps = 0;  // optional: 0 when not recorded
  std::string timing;   // optional: "wall_clock", "cuda_events"; "" when not recorded
  int rounds = 0;       // paired rounds per case
  int process = 0;      // optional: which of run_all's processes for this trick (1-based); 0 alone
  // optional: a planted slowdown (the noise study): `plant_variant`'s samples were made
  // `plant_factor` times slower by busy-waiting. Empty variant, factor 1: none.
  std::string plant_variant;
  double plant_factor = 1;
  // optional: the result file whose iterations per sample this process used instead of
  // calibrating its own (run_all's later processes: process 1's). "" = calibrated here.
  std::string iterations_from;
  // What the timing backend adds (the CUDA one: flush_l2), written after `timing`.
  // Values are JSON scalars; readers keep whatever else they find here.
  Json backend = Json::object();
};

// One variant's checks (trickbench.checks[].variants[]): the one check record. The
// harness's checks (harness/checks.h) fill it, the record writes it, the reports hold it.
struct VariantCheck {
  std::string name;         // the variant; checks[].variants[i] is trickbench.variants[i]
  bool equivalent = false;  // Result() equals the baseline's within the tolerance
  // Not finite (NaN against a number) when written as null: read as infinity.
  double max_abs_diff = 0;
  double max_rel_diff = 0;
  std::string equivalence_detail;
  bool active = false;
  std::string inactive_reason;
  int64_t setup_bytes = 0;     // CPU bytes live after SetUp
  int64_t peak_bytes = 0;      // peak CPU bytes live during the runs, SetUp's survivors included
  int64_t run_peak_bytes = 0;  // peak minus what SetUp left live: what the runs add
  int64_t allocations = 0;     // CPU allocations during the check's runs
  int64_t items_per_run = 0;   // the trick's ItemsPerRun(); 0 when it names none (schema 3)
  // The trick's own figures and the device meter's; a value that was not finite reads
  // as NaN. Optional.
  std::map<std::string, double> counters;
};

struct CaseChecks {
  std::string case_name;               // "" for a trick with one case
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
  std::string fingerprint;                 // the first case's
  std::string detail;                      // why not, or why not checked
  std::vector<ReproducibilityCase> cases;  // empty when not checked
};

// One timed sample of a paired round (trickbench.rounds[].samples[]): one variant's
// `iterations` back-to-back calls, with what the OS says happened meanwhile.
struct RoundSample {
  int round = 0;             // 0-based
  int position = 0;          // 0-based place in the round's order
  int variant = 0;           // index into TrickResult::variants (0 = baseline)
  double start_seconds = 0;  // since the case's first round began
  int64_t iterations = 0;
  double ns_per_iteration = 0;  // the timing backend's time (CUDA: device time)
  // The host's time issuing the iterations, without waiting for the device (the CPU:
  // the same as ns_per_iteration). Near the device time on CUDA: host-bound. 0 when not
  // recorded (before schema 3 added it).
  double host_ns_per_iteration = 0;
  double cpu_ns_per_iteration = 0;  // process CPU time (every thread) per iteration
  int64_t involuntary_switches = 0;
  int64_t voluntary_switches = 0;
  double minor_faults_per_iteration = 0;
  double steal_seconds = 0;  // machine-wide, during the sample
  // One common/speed_probe.h loop's wall time, run just before the sample on the same
  // thread: the machine's speed then. 0 when not recorded (files written before it).
  double probe_ns = 0;
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

// The JSON of one variant's check (trickbench.checks[].variants[]): the record's, and the
// report's (report.json variants[].check), one serialisation. Non-finite figures are
// null, read back as infinity (diffs) or NaN (counters).
Json ToJson(const VariantCheck& check);
VariantCheck VariantCheckFromJson(const Fields& f, const Json& j, const std::string& path);

// The "trickbench" object.
struct TrickResult {
  std::string id, category, source, claim;
  // Optional (absent before claims were data): the claim as data. A file without it is
  // graded by the words of `claim` (reports/analyze.h ClassifyClaim), with no figures.
  std::vector<Expectation> expectations;
  bool has_expectations = false;  // the file had the field (even empty)
  bool needs_cuda = false;        // optional
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
  // Optional: this process metered memory only; its equivalence and "in effect" are
  // process 1's of the same run (harness/checks.h CheckScope), not checked here.
  bool checks_memory_only = false;
  std::optional<Reproducibility> reproducibility;
  // Status ok: one entry per case, in `cases` order; the only samples.
  std::vector<CaseRounds> rounds;
  // Optional (absent in files from before it was recorded).
  std::optional<PhaseSeconds> phase_seconds;
};

struct ResultFile {
  // harness/context.h's entries, plus the executable, date, load_avg and num_cpus (the
  // keys Google Benchmark's context has, so the export can carry them as they are).
  Json context = Json::object();
  TrickResult trickbench;

  Json ToJson() const;
  static ResultFile FromJson(const Json& j, const std::string& file);
};

// What a context key describes: the one list of context keys with a policy. kRun: this
// run alone (executable, date, load, the profiles written), never compared. kHost: which
// machine (its name, its clock), ignored when two runs are compared but kept in the
// environment. kEnvironment: everything else (torch_version, device, blas, ...): two
// results are comparable when these agree.
enum class ContextKind { kEnvironment, kHost, kRun };
ContextKind KindOfContextKey(const std::string& key);

// The context entries that are not kRun, as strings.
std::map<std::string, std::string> Environment(const ResultFile& result);

// What a reader says of a Google Benchmark file given where the record was expected.
inline constexpr char kGoogleBenchmarkFileMessage[] =
    "missing (a Google Benchmark file, such as the <id>.gbench.json export a trick binary "
    "writes; trickbench reads the record beside it, <id>.json)";

bool WriteResultFile(const std::string& path, const ResultFile& result, std::string* error);
ResultFile ReadResultFile(const std::string& path);

}  // namespace results
}  // namespace trickbench
