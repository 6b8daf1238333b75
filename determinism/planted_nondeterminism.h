// A layer that plants scheduling-dependent nondeterminism, to prove that a
// reproducibility check catches it (a check that never sees a failure proves nothing):
// trickbench's own tests use it, and so can a planted-failure test of your gate
// (examples/my_training).
//
//   auto noise = trickbench::testing::ScheduleNoise();
//   options.perturb = [&](torch::Tensor x) { return noise(x); };
//
// Each call starts two threads and adds to its input a small offset (1e-4 to 2e-4)
// derived from when they ran and in which order they finished: what a racy
// accumulation or a timing-dependent kernel choice does to a real run. Two calls agree
// on the offset about 1 time in a million, so two runs part at their first call: a test
// that expects the divergence at the first step, and its op, does not flake.
#pragma once

#include <torch/types.h>

namespace trickbench::testing {

class ScheduleNoise {
 public:
  // x + Offset().
  torch::Tensor operator()(const torch::Tensor& x) const;
  // A new offset: for a kernel that adds it to its output itself, so that the op that
  // differs between runs is that kernel (examples/my_training's racy_accumulate).
  double Offset() const;
};

}  // namespace trickbench::testing
