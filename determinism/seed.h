// Seeding every random number generator a LibTorch program owns.
//
// The `seed_everything(seed)` of DESIGN.md. A trick, a test or a training loop calls
// it once before building models and data; two processes that do so produce the same
// tensors bit for bit (given deterministic algorithms, see guard.h).
//
//   trickbench::SeedEverything(42);
//   auto w = torch::randn({3, 3});            // same in every run
//   auto n = trickbench::HarnessRng()();      // same in every run too
#pragma once

#include <cstdint>
#include <random>

namespace trickbench {

// Seeds the torch CPU generator, every CUDA device's generator when CUDA is
// available, and the harness's own generator (HarnessRng).
void SeedEverything(uint64_t seed);

// The generator the harness and tricks use for non-tensor randomness (shuffles,
// sizes), so that seeding covers it too. Not thread-safe: one thread at a time.
std::mt19937_64& HarnessRng();

}  // namespace trickbench
