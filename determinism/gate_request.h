// What the reproducibility gate (defs.bzl reproducibility_test, gate_runner.sh) asks of
// one run of your training binary, read from the variables it sets. Your binary reads
// them once, at start:
//
//   const trickbench::GateRequest req = trickbench::GateRequestFromEnvironment("trace.json");
//   at::set_num_threads(req.threads.value_or(4));
//   loader_options.workers(req.loader_workers.value_or(2));
//   int64_t first = 0;
//   if (req.resume) first = LoadMyCheckpoint(req.checkpoint) + 1;  // model, optimizer, RNG
//   trickbench::TraceRecorder rec(req.trace_path, {.seed = seed, .first_step = first});
//   for (int64_t step = first; step < steps; ++step) {
//     ...;  // the step
//     rec.Step(step, *model, &optimizer, loss);
//     if (step == req.stop_after_step) { SaveMyCheckpoint(req.checkpoint, step); break; }
//   }
//
// The resume tier runs the binary twice per listed step k: once with
// $TRICKBENCH_STOP_AFTER_STEP=k (train through step k, save everything a resume needs at
// $TRICKBENCH_CHECKPOINT, stop), then with $TRICKBENCH_RESUME=1 (load it and continue to
// the end, recording steps k+1..), and compares those steps with the uninterrupted run.
// What "everything" is, is the point of the tier: a checkpoint without the RNG state,
// the data order or the optimizer's state resumes into another run, and the gate says
// at which step and op.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace trickbench {

inline constexpr char kLoaderWorkersVariable[] = "TRICKBENCH_LOADER_WORKERS";
inline constexpr char kThreadsVariable[] = "TRICKBENCH_THREADS";
inline constexpr char kCheckpointVariable[] = "TRICKBENCH_CHECKPOINT";
inline constexpr char kStopAfterStepVariable[] = "TRICKBENCH_STOP_AFTER_STEP";
inline constexpr char kResumeVariable[] = "TRICKBENCH_RESUME";
inline constexpr char kDeterminismCostVariable[] = "TRICKBENCH_DETERMINISM_COST";

struct GateRequest {
  std::string trace_path;             // $TRICKBENCH_TRACE, else the fallback given
  std::optional<int> loader_workers;  // $TRICKBENCH_LOADER_WORKERS: use this many
  std::optional<int> threads;         // $TRICKBENCH_THREADS: at::set_num_threads(this)
  std::string checkpoint;             // $TRICKBENCH_CHECKPOINT: where to save or load
  int64_t stop_after_step = -1;       // save the checkpoint after this step and stop
  bool resume = false;                // load the checkpoint and continue after its step
  // Time your step with and without DeterministicGuard after the last step and record it
  // (TraceRecorder::RecordDeterminismCost): the rule's determinism_cost.
  bool determinism_cost = false;
};

// Throws std::invalid_argument naming the variable and its value when one is malformed
// (a count that is not an integer >= 0, threads < 1, $TRICKBENCH_RESUME or
// $TRICKBENCH_DETERMINISM_COST other than 0 or 1), when a stop or a resume is asked
// without $TRICKBENCH_CHECKPOINT, or both at once.
GateRequest GateRequestFromEnvironment(const std::string& trace_fallback);

}  // namespace trickbench
