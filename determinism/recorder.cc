#include "determinism/recorder.h"

#include <cstdlib>
#include <stdexcept>

namespace trickbench {

std::string TracePathFromEnvironment(const std::string& fallback) {
  const char* v = std::getenv(kTracePathVariable);
  return v && *v ? std::string(v) : fallback;
}

int64_t OpTraceStepFromEnvironment() {
  const char* v = std::getenv(kOpTraceStepVariable);
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long long k = std::strtoll(v, &end, 10);
  return *end == '\0' && k >= 0 ? k : -1;
}

TraceRecorder::TraceRecorder(std::string path, TraceRecorderOptions options)
    : path_(std::move(path)) {
  file_.label = std::move(options.label);
  file_.seed = options.seed;
  file_.trace = TrainingTrace(options.keep_values);
  op_trace_step_ =
      options.op_trace_step >= 0 ? options.op_trace_step : OpTraceStepFromEnvironment();
  if (op_trace_step_ >= 0 && op_trace_step_ == options.first_step) {
    ops_ = std::make_unique<OpTraceScope>();
  }
}

void TraceRecorder::Step(int64_t step, const torch::nn::Module& model,
                         const torch::optim::Optimizer* optimizer, const torch::Tensor& loss,
                         const NamedTensors& extra) {
  if (finished_) throw std::invalid_argument("TraceRecorder::Step after Finish (" + path_ + ")");
  const auto& steps = file_.trace.steps();
  if (!steps.empty() && step <= steps.back().step) {
    throw std::invalid_argument("TraceRecorder::Step(" + std::to_string(step) + ") after step " +
                                std::to_string(steps.back().step) + ": steps must increase");
  }
  // The step's ops end here: before the recorder's own ops (reading the state) begin.
  if (ops_ && step >= op_trace_step_) {
    file_.ops_step = step;
    file_.ops = ops_->Take();
    ops_.reset();
  }
  if (steps.empty()) {
    file_.environment = RecordedEnvironment();
    file_.audit = AuditDeterminism();
  }
  NamedTensors state = TrainingState(model, optimizer);
  state.emplace_back("loss", loss.defined() ? loss.detach() : loss);
  for (const auto& [name, t] : extra) state.emplace_back("extra:" + name, t);
  file_.trace.Record(step, state);
  // Open after recording, so that the state's own copies are not among the next step's ops.
  if (step + 1 == op_trace_step_) ops_ = std::make_unique<OpTraceScope>();
}

bool TraceRecorder::Finish(std::string* error) {
  if (finished_) {
    *error = path_ + ": TraceRecorder::Finish called twice";
    return false;
  }
  finished_ = true;
  return WriteTraceFile(path_, file_, error);
}

}  // namespace trickbench
