// Does the intra-op thread count change the numbers? Runs the same seeded work with two
// thread counts and says whether the results are bitwise equal, equal within a
// tolerance, or different.
//
//   auto c = trickbench::CompareThreadCounts([] {
//     trickbench::SeedEverything(0);
//     return Train();                       // NamedTensors: the state to compare
//   }, {.rtol = 1e-5, .atol = 1e-7});
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

namespace trickbench {

enum class ThreadVerdict { kBitwiseEqual, kWithinTolerance, kDifferent };
const char* ToString(ThreadVerdict v);

struct ThreadTolerance {
  double rtol = 1e-5;
  double atol = 1e-7;
};

struct ThreadCountComparison {
  int threads_a = 1;
  int threads_b = 2;
  ThreadVerdict verdict = ThreadVerdict::kBitwiseEqual;
  std::string first_differing;  // first tensor that is not bitwise equal; "" if none
  double max_abs_diff = 0;      // over all tensors
  double max_rel_diff = 0;

  std::string Describe() const;
};

// Classifies two results of the same work (same names, dtypes and shapes expected; a
// mismatch of those is kDifferent). |a-b| <= atol + rtol*|b| elementwise is "within".
ThreadCountComparison CompareResults(const NamedTensors& a, const NamedTensors& b,
                                     const ThreadTolerance& tol);

// Runs `run` with threads_a and then threads_b intra-op threads and compares the
// results; the thread count is restored afterwards. `run` must seed what it uses.
ThreadCountComparison CompareThreadCounts(const std::function<NamedTensors()>& run,
                                          const ThreadTolerance& tol, int threads_a = 1,
                                          int threads_b = 2);

}  // namespace trickbench
