// Deterministic mode, switched on for a scope and restored after it.
//
// Everything that makes a LibTorch run choose a nondeterministic path is a process-wide
// flag; the guard sets them all and puts back exactly what it found:
//
//   {
//     trickbench::DeterministicGuard guard;   // error on nondeterministic ops
//     Train(model);                           // bitwise reproducible
//   }                                         // previous flags restored
//
// CUBLAS_WORKSPACE_CONFIG only takes effect if set before the first cuBLAS handle is
// created: create the guard before any CUDA matmul in the process.
#pragma once

#include <optional>
#include <string>

namespace trickbench {

// A snapshot of every determinism-related global setting.
struct DeterminismFlags {
  bool deterministic_algorithms = false;
  bool deterministic_warn_only = false;
  bool cudnn_deterministic = false;
  bool cudnn_benchmark = false;
  bool tf32_cublas = false;
  bool tf32_cudnn = false;
  std::optional<std::string> cublas_workspace_config;  // unset when nullopt

  bool operator==(const DeterminismFlags& o) const;
  bool operator!=(const DeterminismFlags& o) const { return !(*this == o); }
};

DeterminismFlags CurrentDeterminismFlags();
void ApplyDeterminismFlags(const DeterminismFlags& flags);

// One line per flag, "name=value", for logs and result context.
std::string Describe(const DeterminismFlags& flags);

class DeterministicGuard {
 public:
  enum class OnNondeterministicOp { kError, kWarn };

  explicit DeterministicGuard(OnNondeterministicOp mode = OnNondeterministicOp::kError);
  ~DeterministicGuard();
  DeterministicGuard(const DeterministicGuard&) = delete;
  DeterministicGuard& operator=(const DeterministicGuard&) = delete;

 private:
  DeterminismFlags saved_;
};

}  // namespace trickbench
