// The reference training run that the reproducibility gate (//determinism:reproducibility)
// checks: everything that commonly breaks reproducibility, in one small run.
//
//   trickbench::ReferenceOptions o;            // seed 0, 24 steps, 2 loader workers
//   auto a = trickbench::RunReferenceTraining(o);
//   auto b = trickbench::RunReferenceTraining(o);
//   if (auto d = trickbench::FindDivergence(a.trace, b.trace)) FAIL() << d->Describe();
//
// What it exercises: SeedEverything; data drawn from the global generator; a
// per-epoch shuffle; random augmentation in DataLoader worker threads through
// PerSampleSeeded; dropout (the global generator during training); an MLP
// (harness/workloads) trained with Adam, whose state is fingerprinted with the
// parameters and gradients after every step; a checkpoint (model, optimizer, RNG
// state) to stop and resume. Runs in well under a second here.
//
// To gate your own training, copy determinism/reproducibility_test.cc and replace
// RunReferenceTraining with your loop, recording TrainingState() into a trace.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "determinism/seed.h"
#include "determinism/trace.h"

namespace trickbench {

struct ReferenceOptions {
  uint64_t seed = 0;
  int64_t steps = 24;        // 8 batches of 32 per epoch: 3 epochs
  size_t workers = 2;        // DataLoader worker threads (0: load in the training thread)
  bool seed_rngs = true;     // false plants a "missing seed" bug
  bool keep_values = false;  // keep tensor copies in the trace (exact divergence figures)
  // Stop after this many steps and return a checkpoint (0: run all steps).
  int64_t stop_after = 0;
  // Restore the RNG state from the checkpoint when resuming (false plants the
  // "forgot the RNG state" bug).
  bool restore_rng = true;
  // Applied to the logits each step; tests plant nondeterminism through it.
  std::function<torch::Tensor(const torch::Tensor&)> perturb;
};

// Everything needed to resume: serialized model and optimizer, RNG state, next step.
struct Checkpoint {
  std::string model;
  std::string optimizer;
  RngState rng;
  int64_t next_step = 0;
};

struct ReferenceRun {
  TrainingTrace trace;                   // one record per step run
  std::optional<Checkpoint> checkpoint;  // set when stopped early
};

// Runs from step 0, or from `resume` (its trace then starts at resume->next_step).
ReferenceRun RunReferenceTraining(const ReferenceOptions& options,
                                  const Checkpoint* resume = nullptr);

}  // namespace trickbench
