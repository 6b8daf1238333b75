// Seeding every random number generator a LibTorch program owns, and saving and
// restoring their complete state so that a run resumed from a checkpoint continues
// exactly as the uninterrupted run would have.
//
// The `seed_everything(seed)` of the articles (and of Lightning). A trick, a test or a
// training loop calls it once before building models and data; two processes that do so
// produce the same tensors bit for bit (given deterministic algorithms, see guard.h).
//
//   trickbench::SeedEverything(42);
//   auto w = torch::randn({3, 3});            // same in every run
//   auto n = trickbench::HarnessRng()();      // same in every run too
//
//   // Checkpoint: save the RNG state beside the model and optimizer...
//   trickbench::SaveRngState(trickbench::CaptureRngState(), "ckpt/rng.pt");
//   // ...and in the resumed process, after loading model and optimizer:
//   trickbench::RestoreRngState(trickbench::LoadRngState("ckpt/rng.pt"));
//
// Covered: the torch CPU generator, every CUDA device's default generator, the
// harness's own generator (HarnessRng), and the C library's rand() (seeded only: its
// state cannot be read, so code that needs resumable randomness must not use it).
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace trickbench {

// Seeds the torch CPU generator, every CUDA device's generator when CUDA is
// available, the harness's own generator (HarnessRng) and std::rand.
void SeedEverything(uint64_t seed);

// The generator the harness and tricks use for non-tensor randomness (shuffles,
// sizes), so that seeding covers it too. Not thread-safe: one thread at a time.
std::mt19937_64& HarnessRng();

// The complete state of every generator SeedEverything seeds (except std::rand).
struct RngState {
  torch::Tensor cpu;                // uint8 state of the default CPU generator
  std::vector<torch::Tensor> cuda;  // one per CUDA device, in device order
  std::string harness;              // HarnessRng, in std::mt19937_64's text form

  bool operator==(const RngState& o) const;
  bool operator!=(const RngState& o) const { return !(*this == o); }
};

RngState CaptureRngState();

// Puts every generator back to `state`. Throws std::invalid_argument when the state
// does not fit this process (another number of CUDA devices, a malformed harness
// state); no generator is changed in that case.
void RestoreRngState(const RngState& state);

// RngState to and from a file (torch::save archive). LoadRngState throws
// std::runtime_error naming the file when it is missing or not an RNG state.
void SaveRngState(const RngState& state, const std::string& path);
RngState LoadRngState(const std::string& path);

// A well-mixed 64-bit seed for one (seed, epoch, index) triple: the private
// generator of one sample in one epoch (see seeded_dataset.h). Neighbouring triples
// give unrelated seeds, so sample 1 of epoch 0 and sample 0 of epoch 1 do not collide.
uint64_t SampleSeed(uint64_t seed, uint64_t epoch, uint64_t index);

}  // namespace trickbench
