// Two trace files compared: the first divergent step and tensor, whether what differs
// stays within a tolerance, and how the two environments differ. The logic of
// `bazel run //determinism:diff -- a.json b.json` (diff_main.cc).
//
//   trickbench::TraceFile a = trickbench::ReadTraceFile("a.json"), b = ...;
//   trickbench::TraceDiff d = trickbench::DiffTraces(a, b, {.rtol = 1e-5, .atol = 1e-8});
//   std::cout << d.Describe("a.json", "b.json");
//   return d.ExitCode();   // 0 same (or within the tolerance asked for), 1 diverged
//
// A trace keeps each tensor's hash, sum and L2 norm, not its values, so the elementwise
// tolerance |a - b| <= atol + rtol * |b| is checked on what it implies for n elements:
// the sums may differ by n * atol + rtol * sqrt(n) * |b|_2, the norms by sqrt(n) * atol +
// rtol * |b|_2. Beyond either, some element is beyond the tolerance; within both is what
// a cross-machine tier can check from files alone. Two traces recorded with values in
// one process (trace.h FindDivergence) give elementwise figures instead.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "determinism/trace.h"
#include "determinism/trace_file.h"

namespace trickbench {

struct TraceDiffOptions {
  double rtol = 0;  // with atol: the elementwise tolerance, checked on sum and norm
  double atol = 0;  // both 0: bitwise only
  // Compare the steps from this one on, and only those: a run resumed from a checkpoint
  // after step k records steps k+1.. and is compared with the uninterrupted run there.
  // Any step below it is left out of both traces, so it must be asked for, never implied.
  int64_t from_step = std::numeric_limits<int64_t>::min();
};

struct TraceDiff {
  bool tolerance_asked = false;
  // The first bitwise difference, step by step in recording order; nullopt when the
  // traces are bitwise equal.
  std::optional<Divergence> first;
  // The first difference beyond the tolerance (structural ones always are); nullopt
  // when every difference is within it. Only with a tolerance.
  std::optional<Divergence> beyond_tolerance;
  // Tensors (step, name) that differ bitwise; with a tolerance, how many are within it.
  int differing_tensors = 0, within_tolerance = 0;
  // "key: a-value | b-value" for every environment key whose values differ (a key one
  // side lacks shows "(none)"), then "audit name: a-state | b-state" for every
  // determinism precondition whose state differs.
  std::vector<std::string> environment_differences;
  // Both traces recorded the ops of the same step (op_trace.h): the first op whose
  // output differs there; nullopt when they agree or were not recorded.
  std::optional<OpDivergence> first_op;
  int64_t ops_step = -1;  // the step both recorded ops of; -1 when not
  // "determinism cost of FILE's step: deterministic mode: 1.07x ..." for each trace that
  // recorded one (TraceFile::determinism_cost), or why its step cannot run so.
  std::vector<std::string> determinism_costs;
  int64_t from_step = std::numeric_limits<int64_t>::min();  // as asked (TraceDiffOptions)

  bool Bitwise() const { return !first; }
  // 0: bitwise equal, or with a tolerance every difference within it; 1: diverged.
  int ExitCode() const;
  std::string Describe(const std::string& name_a, const std::string& name_b) const;
};

// Throws results::InputError (naming file_b and the field) when the two are not traces
// of the same training: the parameters' names or shapes differ at the first step both
// recorded, or one of them has no step from options.from_step on. That is bad input
// (exit 2), not a divergence.
TraceDiff DiffTraces(const TraceFile& a, const TraceFile& b, const TraceDiffOptions& options,
                     const std::string& file_a = "a", const std::string& file_b = "b");

}  // namespace trickbench
