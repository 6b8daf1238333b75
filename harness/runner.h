// Running one trick: the checks, the timed benchmarks, the result file.
//
// harness/main.cc is `return trickbench::TrickMain(argc, argv);`; the per-trick tests
// call RunChecks and ReproduceFingerprint directly. Flags (see kUsage in runner.cc
// or `bazel run //benches:<id> -- --help`):
//
//   bazel run //benches:no_grad_inference -- --threads=2 --repetitions=15 --out=/tmp/n.json
//
// Exit codes: 0 measured (or skipped: needs CUDA, none here), 2 bad command line,
// 3 invalid (a check failed: no speedup is reported), 1 anything else.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "determinism/fingerprint.h"
#include "harness/trick.h"

namespace trickbench {

inline constexpr int kResultSchemaVersion = 1;
inline constexpr int kExitInvalid = 3;
inline constexpr int kExitUsage = 2;

struct RunOptions {
  std::string out;           // result file; "" = default (results/<id>.json)
  int threads = 0;           // intra-op threads; 0 = one per hardware thread
  int repetitions = 9;       // Google Benchmark repetitions, interleaved
  double min_time = 0.1;     // seconds per repetition
  std::string device = "auto";  // auto | cpu | cuda
  uint64_t seed = 0;
  bool list = false;         // print the trick's variants and cases, run nothing
  bool fingerprint = false;  // print the reproduced variant's fingerprint as JSON
  bool check_only = false;   // checks and memory only, no timing
  bool flush_l2 = false;     // CUDA builds only: cold L2 before every timed iteration
  bool help = false;
  std::vector<std::string> benchmark_flags;  // --benchmark_* passed through
};

// Strict parsing: unknown flags, malformed or out-of-range numbers and unknown
// devices are errors, described in *error.
bool ParseRunOptions(const std::vector<std::string>& args, RunOptions* opts, std::string* error);

// How one variant's results compare with the baseline's.
struct Comparison {
  bool equal = false;  // within the tolerance (bitwise when it is zero)
  double max_abs_diff = 0;
  double max_rel_diff = 0;
  std::string detail;  // why not, when !equal
};
Comparison CompareResults(const Tensors& reference, const Tensors& got, const Tolerance& tol);

struct VariantCheck {
  std::string variant;
  Comparison vs_baseline;
  std::string inactive;      // "" = the trick was in effect
  int64_t setup_bytes = 0;   // CPU bytes live after SetUp
  int64_t peak_bytes = 0;    // peak CPU bytes live during the runs, SetUp's survivors included
  int64_t run_peak_bytes = 0;  // peak minus what SetUp left live: what the runs add
  int64_t allocations = 0;   // CPU allocations during the runs
  std::map<std::string, double> counters;
};

struct CaseCheck {
  std::string case_name;
  std::vector<VariantCheck> variants;
};

struct CheckReport {
  bool ok = true;
  std::string reason;  // the first failure, naming case and variant
  std::vector<CaseCheck> cases;
};

// Every case and variant: fresh seeded instance, SetUp, CheckSteps() runs under the
// CPU memory meter, Result() against the baseline, Inactive(). Exceptions from the
// trick become a failed check with the exception's message.
CheckReport RunChecks(const TrickDef& def, const torch::Device& device, uint64_t seed);

// Seeded, under DeterministicGuard: fresh instance, SetUp, CheckSteps() runs of
// `variant` (default: def.reproduced_variant()), fingerprint of Result().
Fingerprint ReproduceFingerprint(const TrickDef& def, const std::string& case_name,
                                 const torch::Device& device, uint64_t seed,
                                 const std::string& variant = "");

// Resolves --device: "auto" is cuda when available, else cpu. Empty optional with
// *error set when "cuda" is asked for and absent.
bool ResolveDevice(const std::string& flag, torch::Device* device, std::string* error);

// "" when the registration is usable; else what is wrong with it.
std::string ValidateDef(const TrickDef& def);

int TrickMain(int argc, char** argv);

}  // namespace trickbench
