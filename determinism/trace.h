// Per-step fingerprints of a training run, and the divergence report between two runs.
//
// Record the state after every optimizer step; compare two traces to find the first
// step and the first tensor (parameter, gradient or optimizer state, by name) where the
// runs parted, and by how much:
//
//   trickbench::TrainingTrace trace;
//   for (int step = 0; step < steps; ++step) {
//     TrainStep(model, optimizer, batch);
//     trace.Record(TrainingState(*model, optimizer));
//   }
//   if (auto d = trickbench::FindDivergence(reference, trace)) std::cerr << d->Describe();
//   // "runs diverged at step 3, tensor grad:0.weight (values): max |a-b| = 2.4e-07
//   //  (max relative 1.2e-06) in 17 of 32768 elements, first at [0, 12]"
//
// A trace keeps each tensor's hash and summary (sum, L2 norm); with keep_values it
// also keeps a copy of the tensors, so the report gives the exact elementwise
// difference instead of the difference of the summaries. Traces go to and from JSON
// (without values) to compare runs of separate processes.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "determinism/fingerprint.h"
#include "third_party/libtorch/forward.h"

namespace trickbench {

// The optimizer's per-parameter state tensors, named "<param>.<field>" after the
// module's parameter names (e.g. "0.weight.exp_avg"); scalar step counters come as
// int64 tensors ("<param>.step"). Supports SGD, Adam, AdamW, Adagrad and RMSprop;
// throws std::invalid_argument for another optimizer that has state, or for a
// parameter of the optimizer that `module` does not own.
NamedTensors OptimizerStateTensors(const torch::optim::Optimizer& optimizer,
                                   const torch::nn::Module& module);

// Everything a training step changes: "param:<name>", "grad:<name>" (undefined grads
// included, a set-to-none grad is state too), "buffer:<name>", "optim:<name>.<field>".
NamedTensors TrainingState(const torch::nn::Module& module,
                           const torch::optim::Optimizer* optimizer);

struct TensorRecord {
  TensorDigest digest;
  double sum = 0;       // float64 sum of the values (0 for undefined)
  double norm = 0;      // float64 L2 norm
  torch::Tensor value;  // a copy, only with keep_values
};

// Equal doubles, a NaN equal to a NaN: how recorded sums and norms compare.
bool SameValue(double a, double b);
// Two records of one tensor agree: the same digest (name, dtype, shape, bytes) and sum.
bool SameRecord(const TensorRecord& a, const TensorRecord& b);

struct StepRecord {
  int64_t step = 0;
  std::vector<TensorRecord> tensors;
  uint64_t digest = 0;  // FingerprintTensors of the step's state
};

class TrainingTrace {
 public:
  explicit TrainingTrace(bool keep_values = false) : keep_values_(keep_values) {}

  // Appends the state after the next step (steps count from 0).
  void Record(const NamedTensors& state);
  // Same, with an explicit step number (e.g. a run resumed at step k starts at k).
  void Record(int64_t step, const NamedTensors& state);

  // Appends a step recorded elsewhere (e.g. the steps of a resumed run).
  void Append(const StepRecord& step) { steps_.push_back(step); }

  const std::vector<StepRecord>& steps() const { return steps_; }
  bool keep_values() const { return keep_values_; }
  // The digest of the last recorded step: the run's final fingerprint. 0 when empty.
  uint64_t FinalDigest() const { return steps_.empty() ? 0 : steps_.back().digest; }

  // JSON text: {"steps":[{"step":0,"digest":"..","tensors":[{"name",..}]}]}. Values
  // are not written. FromJson throws std::invalid_argument naming the missing or
  // malformed field.
  std::string ToJson() const;
  static TrainingTrace FromJson(const std::string& text);

 private:
  bool keep_values_;
  std::vector<StepRecord> steps_;
};

struct Divergence {
  int64_t step = -1;   // first step whose state differs
  std::string tensor;  // first tensor (in recording order) that differs there
  std::string what;    // "values", "dtype", "shape", "only in run a", "only in run b",
                       // "step missing in run b", ...
  // With both runs' values kept: exact elementwise figures.
  bool exact = false;
  double max_abs_diff = 0;
  double max_rel_diff = 0;
  int64_t differing_elements = 0;
  int64_t elements = 0;
  std::vector<int64_t> first_index;  // of the first differing element (tensor_compare.h)
  // Always: the difference of the summaries.
  double sum_diff = 0;
  double norm_diff = 0;

  // One paragraph for a test failure or a CI log.
  std::string Describe() const;
};

// nullopt when the traces are bitwise equal step by step. Steps are matched by step
// number; a step only one trace has is a divergence too.
std::optional<Divergence> FindDivergence(const TrainingTrace& a, const TrainingTrace& b);

}  // namespace trickbench
