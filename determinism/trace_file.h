// A trace file: one training run's per-step trace (trace.h) with what it ran under, as
// versioned JSON, so that runs of separate processes, builds or machines can be diffed
// (`bazel run //determinism:diff -- a.json b.json`). Written by TraceRecorder
// (recorder.h); the format is determinism/TRACE_FORMAT.md.
//
//   trickbench::TraceFile f{.label = "workers=2", .seed = 0,
//                           .environment = trickbench::RecordedEnvironment(),
//                           .audit = trickbench::AuditDeterminism(), .trace = trace};
//   std::string error;
//   if (!trickbench::WriteTraceFile("runs/a.json", f, &error)) std::cerr << error;
//   trickbench::TraceFile g = trickbench::ReadTraceFile("runs/a.json");  // or InputError
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "determinism/audit.h"
#include "determinism/cost.h"
#include "determinism/op_trace.h"
#include "determinism/trace.h"

namespace trickbench {

inline constexpr char kTraceSchema[] = "trickbench.trace";
inline constexpr int kTraceSchemaVersion = 1;

struct TraceFile {
  std::string label;  // what this run was: "workers=2", "resumed at step 5"; may be ""
  uint64_t seed = 0;  // the seed the run was given (below 2^63)
  // What the run ran under (RecordedEnvironment): the diff names every key whose value
  // differs, since a difference here is often the cause of a divergence.
  std::map<std::string, std::string> environment;
  // Every determinism precondition as the run had it (audit.h), in AuditDeterminism's
  // order: `diff --audit` prints it, and the diff names the states that differ.
  std::vector<Precondition> audit;
  TrainingTrace trace;
  // One step's ops with their input and output hashes (op_trace.h), when the run was
  // asked for them ($TRICKBENCH_OP_TRACE_STEP); ops_step -1 when not.
  int64_t ops_step = -1;
  std::vector<OpRecord> ops;
  // The run's own step timed with and without DeterministicGuard (cost.h), when the run was
  // asked for it ($TRICKBENCH_DETERMINISM_COST); the diff prints the estimate.
  std::optional<CostSamples> determinism_cost;
};

// The environment a trace records, read in this process now: "torch" (the LibTorch
// version), "host", "cpu_model", "cuda_devices".
std::map<std::string, std::string> RecordedEnvironment();

// The document, written atomically (common/atomic_file.h): false with *error naming
// the path on failure, and nothing half-written.
std::string TraceFileJson(const TraceFile& file);
bool WriteTraceFile(const std::string& path, const TraceFile& file, std::string* error);

// Throws results::InputError naming the file and the field: not found, truncated, not
// a trace file, another schema version, a malformed step.
TraceFile ReadTraceFile(const std::string& path);
TraceFile ParseTraceFile(const std::string& text, const std::string& file);

}  // namespace trickbench
