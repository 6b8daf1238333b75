// Test-only: a layer that plants scheduling-dependent nondeterminism, to prove that
// the reproducibility checks catch it (a check that never sees a failure proves
// nothing).
//
//   auto noise = trickbench::testing::ScheduleNoise();
//   options.perturb = [&](torch::Tensor x) { return noise(x); };
//
// Each call starts two threads and adds to its input a small offset (1e-4 to 2e-4)
// derived from when they ran and in which order they finished: what a racy
// accumulation or a timing-dependent kernel choice does to a real run. Two runs agree on
// one call's offset about 1 time in 200, so over a run of many steps they never agree.
#pragma once

#include <torch/types.h>

namespace trickbench::testing {

class ScheduleNoise {
 public:
  torch::Tensor operator()(const torch::Tensor& x) const;
};

}  // namespace trickbench::testing
