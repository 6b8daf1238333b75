// Does the intra-op thread count change the numbers? Runs the same seeded work with two
// thread counts and says whether the results are bitwise equal, equal within a
// tolerance, or different.
//
//   auto c = trickbench::CompareThreadCounts([] {
//     trickbench::SeedEverything(0);
//     return Train();                       // NamedTensors: the state to compare
//   }, {.rtol = 1e-5, .atol = 1e-7});          // tensor_compare.h
//   std::cout << c.Describe();              // "1 vs 2 threads: within tolerance ..."
//
// Why it can differ: ATen splits a reduction (sum, mean, norm, the grad of a broadcast
// bias) into one partial result per thread and adds the partials; a different thread
// count adds in a different order, which changes the last bits. What to pin, measured
// on this machine, is in determinism/README.md.
#pragma once

#include <functional>
#include <string>

#include "determinism/fingerprint.h"
#include "determinism/tensor_compare.h"

namespace trickbench {

enum class ThreadVerdict { kBitwiseEqual, kWithinTolerance, kDifferent };
const char* ToString(ThreadVerdict v);

// Bitwise equal, equal within the comparison's tolerance, or different (including a
// name, dtype or shape mismatch).
ThreadVerdict VerdictOf(const TensorComparison& c);

struct ThreadCountComparison {
  int threads_a = 1;
  int threads_b = 2;
  ThreadVerdict verdict = ThreadVerdict::kBitwiseEqual;
  TensorComparison tensors;  // run with threads_a as the reference

  std::string Describe() const;
};

// Runs `run` with threads_a and then threads_b intra-op threads and compares the
// results (same names, dtypes and shapes expected); the thread count is restored
// afterwards. `run` must seed what it uses.
ThreadCountComparison CompareThreadCounts(const std::function<NamedTensors()>& run,
                                          const TensorTolerance& tol, int threads_a = 1,
                                          int threads_b = 2);

}  // namespace trickbench
