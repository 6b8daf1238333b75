// Recording your own training for the reproducibility gate: one call per step, one
// trace file per run, diffed with `bazel run //determinism:diff -- a.json b.json`.
//
//   trickbench::TraceRecorder rec(trickbench::TracePathFromEnvironment("trace.json"),
//                                 {.seed = seed, .label = "workers=2"});
//   for (int64_t step = 0; step < steps; ++step) {
//     auto loss = TrainStep(model, optimizer, batch);
//     rec.Step(step, *model, &optimizer, loss);   // after optimizer.step()
//   }
//   std::string error;
//   if (!rec.Finish(&error)) { std::cerr << error << "\n"; return 1; }
//
// Each step records the fingerprints of everything a step changes (trace.h
// TrainingState: parameters, gradients, buffers, optimizer state), the loss as "loss",
// and any extra tensors you name as "extra:<name>" (an output, a learning rate). The
// first Step also records what the run ran under (trace_file.h RecordedEnvironment: the
// LibTorch version, the machine, every determinism precondition's state), read then and
// not at construction because a training script sets its flags in between.
//
// Down to the op: with $TRICKBENCH_OP_TRACE_STEP=k (or TraceRecorderOptions::op_trace_step)
// the recorder also records every op of step k with its input and output hashes
// (op_trace.h), from the previous Step call (or construction, for the first step) to
// Step(k). The diff then names the first op whose output differs; the gate reruns a
// diverged pair so. What else the gate asks of a run (worker and thread counts, a stop
// and a resume): gate_request.h.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "determinism/fingerprint.h"
#include "determinism/op_trace.h"
#include "determinism/trace_file.h"
#include "third_party/libtorch/forward.h"

namespace trickbench {

// The variable a gate sets to say where a run writes its trace.
inline constexpr char kTracePathVariable[] = "TRICKBENCH_TRACE";

// $TRICKBENCH_TRACE when set and not empty, else `fallback`.
std::string TracePathFromEnvironment(const std::string& fallback);

// The variable that asks for one step's ops, and its value (-1 when unset or not a
// count >= 0).
inline constexpr char kOpTraceStepVariable[] = "TRICKBENCH_OP_TRACE_STEP";
int64_t OpTraceStepFromEnvironment();

struct TraceRecorderOptions {
  uint64_t seed = 0;           // recorded as is: the seed your run used
  std::string label;           // what this run is, for the diff's report
  bool keep_values = false;    // keep tensor copies in memory (TrainingTrace(true))
  int64_t op_trace_step = -1;  // the step whose ops to record; -1: $TRICKBENCH_OP_TRACE_STEP
  // The first step this run records: 0, or for a run resumed from a checkpoint after step
  // k, k + 1. When it is the op trace step, the ops are recorded from construction on,
  // so construct the recorder just before the loop (after loading the checkpoint).
  int64_t first_step = 0;
};

class TraceRecorder {
 public:
  explicit TraceRecorder(std::string path, TraceRecorderOptions options = {});
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Records the state after step `step` (steps in increasing order; a resumed run
  // starts at the step it resumes from). `optimizer` may be null (no optimizer state).
  // Throws std::invalid_argument for a step not above the last one, or after Finish.
  void Step(int64_t step, const torch::nn::Module& model, const torch::optim::Optimizer* optimizer,
            const torch::Tensor& loss, const NamedTensors& extra = {});

  // The step's cost in deterministic mode, from TimeDeterminismCost (cost.h) on your own
  // step, written with the trace: the gate asks for it with $TRICKBENCH_DETERMINISM_COST
  // (GateRequest::determinism_cost) and prints it. Time after the last Step: the timing
  // runs more steps on your model.
  void RecordDeterminismCost(CostSamples samples) { file_.determinism_cost = std::move(samples); }

  // Writes the trace file atomically. False with *error naming the path when it cannot
  // (nothing half-written). Call once; a recorder destroyed without it writes nothing.
  bool Finish(std::string* error);

  const TraceFile& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  TraceFile file_;
  int64_t op_trace_step_ = -1;
  std::unique_ptr<OpTraceScope> ops_;  // open from the step before op_trace_step_ to it
  bool finished_ = false;
};

}  // namespace trickbench
