#include "determinism/gate_request.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "determinism/recorder.h"

namespace trickbench {
namespace {

// The variable's value, "" when unset.
std::string Get(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// An integer >= lo, or nullopt when unset or empty.
std::optional<int64_t> Count(const char* name, int64_t lo) {
  const std::string text = Get(name);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || v < lo || v > (1LL << 30)) {
    throw std::invalid_argument("$" + std::string(name) + "=" + text +
                                ": expected an integer >= " + std::to_string(lo));
  }
  return v;
}

// "1" true, "0" or unset false.
bool Flag(const char* name) {
  const std::string text = Get(name);
  if (!text.empty() && text != "0" && text != "1") {
    throw std::invalid_argument("$" + std::string(name) + "=" + text + ": expected 0 or 1");
  }
  return text == "1";
}

}  // namespace

GateRequest GateRequestFromEnvironment(const std::string& trace_fallback) {
  GateRequest r;
  r.trace_path = TracePathFromEnvironment(trace_fallback);
  if (auto w = Count(kLoaderWorkersVariable, 0)) r.loader_workers = static_cast<int>(*w);
  if (auto t = Count(kThreadsVariable, 1)) r.threads = static_cast<int>(*t);
  r.checkpoint = Get(kCheckpointVariable);
  if (auto k = Count(kStopAfterStepVariable, 0)) r.stop_after_step = *k;
  r.resume = Flag(kResumeVariable);
  r.determinism_cost = Flag(kDeterminismCostVariable);
  if (r.resume && r.stop_after_step >= 0) {
    throw std::invalid_argument("$" + std::string(kResumeVariable) + " and $" +
                                kStopAfterStepVariable + " are both set: a run either stops or " +
                                "resumes");
  }
  if ((r.resume || r.stop_after_step >= 0) && r.checkpoint.empty()) {
    throw std::invalid_argument("$" +
                                std::string(r.resume ? kResumeVariable : kStopAfterStepVariable) +
                                " needs $" + kCheckpointVariable + ": where the checkpoint is");
  }
  return r;
}

}  // namespace trickbench
