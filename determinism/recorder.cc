#include "determinism/recorder.h"

#include <cstdlib>
#include <stdexcept>

namespace trickbench {

std::string TracePathFromEnvironment(const std::string& fallback) {
  const char* v = std::getenv(kTracePathVariable);
  return v && *v ? std::string(v) : fallback;
}

TraceRecorder::TraceRecorder(std::string path, TraceRecorderOptions options)
    : path_(std::move(path)) {
  file_.label = std::move(options.label);
  file_.seed = options.seed;
  file_.trace = TrainingTrace(options.keep_values);
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
  if (steps.empty()) {
    file_.environment = RecordedEnvironment();
    file_.audit = AuditDeterminism();
  }
  NamedTensors state = TrainingState(model, optimizer);
  state.emplace_back("loss", loss.defined() ? loss.detach() : loss);
  for (const auto& [name, t] : extra) state.emplace_back("extra:" + name, t);
  file_.trace.Record(step, state);
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
