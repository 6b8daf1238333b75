#include "determinism/thread_count.h"

#include <ATen/Parallel.h>

#include <sstream>

namespace trickbench {

const char* ToString(ThreadVerdict v) {
  switch (v) {
    case ThreadVerdict::kBitwiseEqual: return "bitwise equal";
    case ThreadVerdict::kWithinTolerance: return "within tolerance";
    case ThreadVerdict::kDifferent: return "different";
  }
  return "?";
}

std::string ThreadCountComparison::Describe() const {
  std::ostringstream os;
  os << threads_a << " vs " << threads_b << " threads: " << ToString(verdict);
  if (!first_differing.empty()) {
    os << " (first differing tensor " << first_differing << ", max |a-b| = " << max_abs_diff
       << ", max relative " << max_rel_diff << ")";
  }
  return os.str();
}

ThreadCountComparison CompareResults(const NamedTensors& a, const NamedTensors& b,
                                     const ThreadTolerance& tol) {
  ThreadCountComparison c;
  bool within = true;
  if (a.size() != b.size()) {
    c.verdict = ThreadVerdict::kDifferent;
    c.first_differing = "(different number of tensors)";
    return c;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    const torch::Tensor& ta = a[i].second;
    const torch::Tensor& tb = b[i].second;
    if (HashTensor(ta) == HashTensor(tb) && a[i].first == b[i].first) continue;
    if (c.first_differing.empty()) c.first_differing = a[i].first;
    if (a[i].first != b[i].first || ta.defined() != tb.defined() ||
        (ta.defined() && (ta.scalar_type() != tb.scalar_type() || ta.sizes() != tb.sizes()))) {
      c.verdict = ThreadVerdict::kDifferent;
      return c;
    }
    if (!ta.defined()) continue;
    const torch::Tensor da = ta.detach().to(torch::kCPU, torch::kDouble);
    const torch::Tensor db = tb.detach().to(torch::kCPU, torch::kDouble);
    const torch::Tensor diff = (da - db).abs();
    if (diff.numel() > 0) {
      c.max_abs_diff = std::max(c.max_abs_diff, diff.max().item<double>());
      c.max_rel_diff =
          std::max(c.max_rel_diff, (diff / db.abs().clamp_min(1e-30)).max().item<double>());
    }
    within = within && torch::allclose(da, db, tol.rtol, tol.atol, /*equal_nan=*/true);
  }
  if (c.first_differing.empty()) {
    c.verdict = ThreadVerdict::kBitwiseEqual;
  } else {
    c.verdict = within ? ThreadVerdict::kWithinTolerance : ThreadVerdict::kDifferent;
  }
  return c;
}

ThreadCountComparison CompareThreadCounts(const std::function<NamedTensors()>& run,
                                          const ThreadTolerance& tol, int threads_a,
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
  ThreadCountComparison c = CompareResults(a, b, tol);
  c.threads_a = threads_a;
  c.threads_b = threads_b;
  return c;
}

}  // namespace trickbench
