#include "determinism/thread_count.h"

#include <ATen/Parallel.h>

#include <sstream>

namespace trickbench {

const char* ToString(ThreadVerdict v) {
  switch (v) {
    case ThreadVerdict::kBitwiseEqual:
      return "bitwise equal";
    case ThreadVerdict::kWithinTolerance:
      return "within tolerance";
    case ThreadVerdict::kDifferent:
      return "different";
  }
  return "?";
}

ThreadVerdict VerdictOf(const TensorComparison& c) {
  if (c.bitwise_equal) return ThreadVerdict::kBitwiseEqual;
  return c.equal ? ThreadVerdict::kWithinTolerance : ThreadVerdict::kDifferent;
}

std::string ThreadCountComparison::Describe() const {
  std::ostringstream os;
  os << threads_a << " vs " << threads_b << " threads: " << ToString(verdict);
  if (verdict != ThreadVerdict::kBitwiseEqual) {
    const TensorDifference* d =
        verdict == ThreadVerdict::kDifferent ? tensors.FirstMismatch() : tensors.FirstDifference();
    os << " (" << d->Describe(std::to_string(threads_a) + " threads") << ")";
  }
  return os.str();
}

ThreadCountComparison CompareThreadCounts(const std::function<NamedTensors()>& run,
                                          const TensorTolerance& tol, int threads_a,
                                          int threads_b) {
  const int before = at::get_num_threads();
  struct Restore {
    int threads;
    ~Restore() { at::set_num_threads(threads); }
  } restore{before};
  at::set_num_threads(threads_a);
  const NamedTensors a = run();
  at::set_num_threads(threads_b);
  const NamedTensors b = run();
  ThreadCountComparison c;
  c.tensors = CompareTensors(a, b, tol);
  c.verdict = VerdictOf(c.tensors);
  c.threads_a = threads_a;
  c.threads_b = threads_b;
  return c;
}

}  // namespace trickbench
