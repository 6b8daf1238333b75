// The checks a trick must pass before anything of it is timed, and its reproducibility.
//
//   const CheckReport report = RunChecks(def, torch::kCPU, /*seed=*/0);
//   if (!report.ok) std::cerr << report.reason;   // "large/optimized differs from ..."
//   file.trickbench.checks = report.cases;          // the record's own type: no copy
//   const results::Reproducibility r = CheckReproducibility(def, torch::kCPU, 0);
//
// Per case and variant, RunChecks runs a fresh seeded instance CheckSteps() times under
// the CPU memory meter (and the device's, when the timing backend has one), compares
// Result() with the baseline's within the trick's tolerance, and asks Inactive().
// Why checks come first: a speedup of a variant that computes something else, or of a
// trick that was silently not in effect, is not a finding. A failed check makes the
// whole trick invalid and nothing of it is timed.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "determinism/fingerprint.h"
#include "harness/memory.h"
#include "harness/timing.h"
#include "harness/trick.h"
#include "results/result_file.h"

namespace trickbench {

// Per case and variant, the record's check (results::VariantCheck): equivalence with
// the baseline (determinism/tensor_compare.h, on the CPU, within the trick's tolerance;
// NaN against a number counts as infinite), in effect or why not, memory, counters.
struct CheckReport {
  bool ok = true;
  std::string reason;  // the first failure, naming case and variant
  std::vector<results::CaseChecks> cases;
};

// A planted non-application of the trick, for the mutation tests: every check must be
// shown to fire (//benches:<id>_test runs both on every trick).
enum class Mutation {
  kNone,
  // Every optimized variant runs the baseline's body on the instance set up for it: the
  // trick not applied. Inactive() or the equivalence check must say so.
  kBaselineBody,
  // Every optimized variant runs CheckSteps() - 1 times: one update dropped. For
  // Trains() tricks, the equivalence check must see it.
  kSkipStep,
};

// How much of the checks a process runs. Equivalence and "in effect" do not change from
// one process of a run to the next (the same seeded instances, the same code), so
// run_all's later processes leave them to process 1 and keep only what does vary
// between processes: the peak memory, metered the same way (and Result(), Inactive(),
// Counters() and the op counter, which cost as much as the steps for large outputs,
// are not run).
enum class CheckScope {
  kFull,
  kMemoryOnly,  // equivalent and active recorded as true, with kCheckedByProcess1 as detail
};
inline constexpr char kCheckedByProcess1[] = "checked by process 1 of this run";

// A variant's memory as its check meters it, wherever the instance lives: RunChecks
// makes one per variant, and on the CPU the later processes of a run meter it while
// the rounds build and warm up their instances (harness/rounds.cc), with no separate
// pass. Constructed before the instance is made; AfterSetUp() once SetUp returned;
// AfterSteps() after the CheckSteps() runs.
//
//   results::VariantCheck vc;
//   VariantMemory memory(&vc);
//   auto trick = def.Make();
//   SetUpInstance(*trick, ...);
//   memory.AfterSetUp(*trick);          // setup_bytes, items_per_run; the peak restarts
//   for (int s = 0; s < def.check_steps(); ++s) body(*trick);
//   memory.AfterSteps();                // peak_bytes, run_peak_bytes, allocations
//
// The meter counts from its own start, so instances made before it (the other
// variants' in the rounds) are not in its figures. One at a time (CpuMemoryMeter).
class VariantMemory {
 public:
  explicit VariantMemory(results::VariantCheck* vc) : vc_(vc) {}
  void AfterSetUp(const Trick& trick);
  void AfterSteps();

 private:
  CpuMemoryMeter meter_;
  results::VariantCheck* vc_;
  int64_t allocations_before_ = 0;
};

// The check record of a process that leaves equivalence and "in effect" to process 1:
// both recorded as true, with kCheckedByProcess1 as the detail; memory to be metered.
results::VariantCheck CheckedByProcess1(const std::string& variant);

// Every case and variant: fresh seeded instance, SetUp, CheckSteps() runs under the
// CPU memory meter (and `timing`'s device memory meter, if it has one), Result()
// against the baseline, Inactive(). Exceptions from the trick become a failed check
// with the exception's message.
// `mutation` plants a non-application (above) in every optimized variant.
CheckReport RunChecks(const TrickDef& def, const torch::Device& device, uint64_t seed,
                      const TimingBackend* timing = nullptr, Mutation mutation = Mutation::kNone,
                      CheckScope scope = CheckScope::kFull);

// Seeded, under DeterministicGuard: fresh instance, SetUp, CheckSteps() runs of
// `variant` (default: def.reproduced_variant()), fingerprint of Result().
Fingerprint ReproduceFingerprint(const TrickDef& def, const std::string& case_name,
                                 const torch::Device& device, uint64_t seed,
                                 const std::string& variant = "");

// Two ReproduceFingerprint runs per case: the per-trick row of the reproducibility
// matrix. A run that throws is recorded as not reproducible, with the message.
results::Reproducibility CheckReproducibility(const TrickDef& def, const torch::Device& device,
                                              uint64_t seed);

// The reproducibility record when it was not checked: same fields, nothing claimed.
results::Reproducibility NotChecked(const std::string& why);

// "" when the registration is usable; else what is wrong with it.
std::string ValidateDef(const TrickDef& def);

// An exception's message for one line: c10::Error::what() carries a C++ backtrace
// after its first line.
std::string DescribeException(const std::exception& e);

}  // namespace trickbench
