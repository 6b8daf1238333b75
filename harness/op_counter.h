// Counts the ATen ops a scope dispatches on the calling thread, by name.
//
//   OpCounter ops;
//   y = at::gelu(x);
//   ops.counts();  // {"aten::gelu": 1}
//
// Counts are dispatches: `x * 2` is two ("aten::mul" for the Scalar overload, which
// wraps the 2 and calls the Tensor one), so read them as present or absent, or compare
// two variants, rather than as kernels launched.
//
// Why: an Inactive() check must see evidence that the optimized code path ran, not the
// set-up it was given (harness/trick.h). The ops a body dispatched are that evidence,
// for every trick alike: a foreach kernel, a quantized linear, one gelu instead of five
// pointwise ops. The checks count each run of a body with one of these and hand the last
// run's counts to the trick (Trick::OpsRun); the timed runs never count, since a
// RecordFunction callback costs every op a little.
// Only ops dispatched on the thread that made the counter are seen (a thread-local
// RecordFunction callback; LibTorch's intra-op pool does not dispatch ops of its own).
// Counters nest: an inner one counts its scope only, the outer one still counts all.
#pragma once

#include <ATen/record_function.h>

#include <cstdint>
#include <map>
#include <string>

namespace trickbench {

class OpCounter {
 public:
  OpCounter();
  ~OpCounter();
  OpCounter(const OpCounter&) = delete;
  OpCounter& operator=(const OpCounter&) = delete;

  // Op name ("aten::mul", "quantized::linear_dynamic") -> times dispatched so far.
  const std::map<std::string, int64_t>& counts() const { return counts_; }

 private:
  static std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn);

  std::map<std::string, int64_t> counts_;
  OpCounter* outer_;
  at::CallbackHandle handle_;
};

}  // namespace trickbench
