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
// Set by the guard: deterministic algorithms (error, or warn-only when asked),
// deterministic cuDNN, cuDNN benchmark off, TF32 off for cuBLAS and cuDNN,
// CUBLAS_WORKSPACE_CONFIG, and on LibTorch >= 2.1 the NaN-fill of uninitialised memory
// (torch.empty & co. fill with NaN under deterministic algorithms, so a read of
// uninitialised memory is caught instead of silently varying; it costs a memset per
// allocation, which DeterministicGuard::Fill::kLeave skips).
//
// CUBLAS_WORKSPACE_CONFIG is read once, when the first cuBLAS workspace is made: a
// guard created after a CUDA matmul ran sets the variable too late for that handle.
// Link //determinism:cublas_workspace_config_at_startup (it sets the variable before
// main) or call SetCublasWorkspaceConfigIfUnset() first thing in main.
#pragma once

#include <optional>
#include <string>

namespace trickbench {

// ":4096:8", one of the two settings cuBLAS documents as deterministic.
extern const char kDeterministicCublasWorkspaceConfig[];

// A snapshot of every determinism-related global setting.
struct DeterminismFlags {
  bool deterministic_algorithms = false;
  bool deterministic_warn_only = false;
  bool cudnn_deterministic = false;
  bool cudnn_benchmark = false;
  bool tf32_cublas = false;
  bool tf32_cudnn = false;
  std::optional<std::string> cublas_workspace_config;  // unset when nullopt
  // Whether deterministic mode NaN-fills uninitialised memory; nullopt on LibTorch
  // before 2.1, which has no such setting (and does not fill).
  std::optional<bool> fill_uninitialized_memory;

  bool operator==(const DeterminismFlags& o) const;
  bool operator!=(const DeterminismFlags& o) const { return !(*this == o); }
};

DeterminismFlags CurrentDeterminismFlags();
// Applies every field; fill_uninitialized_memory only where this LibTorch has it
// (a value given to a build without it is ignored: there is nothing to set).
void ApplyDeterminismFlags(const DeterminismFlags& flags);

// One line, "name=value" per flag, for logs and result context.
std::string Describe(const DeterminismFlags& flags);

// True when this LibTorch has the NaN-fill setting (2.1 and later).
bool HasFillUninitializedMemorySetting();

// Sets CUBLAS_WORKSPACE_CONFIG to the deterministic value unless the user set it.
// Returns true when it set it. Call before any CUDA work (see the note above).
bool SetCublasWorkspaceConfigIfUnset();

class DeterministicGuard {
 public:
  enum class OnNondeterministicOp { kError, kWarn };
  // kNaN: NaN-fill uninitialised memory (LibTorch's default in deterministic mode);
  // kLeave: do not fill. No effect before LibTorch 2.1.
  enum class Fill { kNaN, kLeave };

  explicit DeterministicGuard(OnNondeterministicOp mode = OnNondeterministicOp::kError,
                              Fill fill = Fill::kNaN);
  ~DeterministicGuard();
  DeterministicGuard(const DeterministicGuard&) = delete;
  DeterministicGuard& operator=(const DeterministicGuard&) = delete;

  // The flags the guard found and will restore.
  const DeterminismFlags& saved() const { return saved_; }

 private:
  DeterminismFlags saved_;
};

}  // namespace trickbench
