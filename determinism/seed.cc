#include "determinism/seed.h"

#include <torch/torch.h>

namespace trickbench {

std::mt19937_64& HarnessRng() {
  static std::mt19937_64 rng(0);
  return rng;
}

void SeedEverything(uint64_t seed) {
  // torch::manual_seed seeds the CPU generator and, when GPUs are present, every
  // CUDA generator; it skips CUDA on a CPU-only build instead of failing.
  torch::manual_seed(seed);
  // Derived rather than equal, so the harness stream differs from torch's.
  HarnessRng().seed(seed ^ 0x9E3779B97F4A7C15ull);
}

}  // namespace trickbench
