#include "determinism/guard.h"

#include <ATen/Context.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>

#include "third_party/libtorch/compat.h"

namespace trickbench {

const char kDeterministicCublasWorkspaceConfig[] = ":4096:8";

namespace {
constexpr char kCublasEnv[] = "CUBLAS_WORKSPACE_CONFIG";
}  // namespace

bool DeterminismFlags::operator==(const DeterminismFlags& o) const {
  return deterministic_algorithms == o.deterministic_algorithms &&
         deterministic_warn_only == o.deterministic_warn_only &&
         cudnn_deterministic == o.cudnn_deterministic && cudnn_benchmark == o.cudnn_benchmark &&
         tf32_cublas == o.tf32_cublas && tf32_cudnn == o.tf32_cudnn &&
         cublas_workspace_config == o.cublas_workspace_config &&
         fill_uninitialized_memory == o.fill_uninitialized_memory;
}

bool HasFillUninitializedMemorySetting() { return torch_compat::kHasFillUninitializedMemory; }

DeterminismFlags CurrentDeterminismFlags() {
  auto& ctx = at::globalContext();
  DeterminismFlags f;
  f.deterministic_algorithms = ctx.deterministicAlgorithms();
  f.deterministic_warn_only = ctx.deterministicAlgorithmsWarnOnly();
  f.cudnn_deterministic = ctx.deterministicCuDNN();
  f.cudnn_benchmark = ctx.benchmarkCuDNN();
  f.tf32_cublas = ctx.allowTF32CuBLAS();
  f.tf32_cudnn = ctx.allowTF32CuDNN();
  if (const char* v = std::getenv(kCublasEnv)) f.cublas_workspace_config = v;
  if (torch_compat::kHasFillUninitializedMemory) {
    f.fill_uninitialized_memory = torch_compat::FillUninitializedMemory();
  }
  return f;
}

void ApplyDeterminismFlags(const DeterminismFlags& f) {
  auto& ctx = at::globalContext();
  ctx.setDeterministicAlgorithms(f.deterministic_algorithms, f.deterministic_warn_only);
  ctx.setDeterministicCuDNN(f.cudnn_deterministic);
  ctx.setBenchmarkCuDNN(f.cudnn_benchmark);
  ctx.setAllowTF32CuBLAS(f.tf32_cublas);
  ctx.setAllowTF32CuDNN(f.tf32_cudnn);
  if (f.cublas_workspace_config) {
    setenv(kCublasEnv, f.cublas_workspace_config->c_str(), 1);
  } else {
    unsetenv(kCublasEnv);
  }
  if (f.fill_uninitialized_memory) {
    torch_compat::SetFillUninitializedMemory(*f.fill_uninitialized_memory);
  }
}

std::string Describe(const DeterminismFlags& f) {
  std::ostringstream os;
  os << "deterministic_algorithms=" << f.deterministic_algorithms
     << (f.deterministic_warn_only ? " (warn only)" : "")
     << " cudnn_deterministic=" << f.cudnn_deterministic << " cudnn_benchmark=" << f.cudnn_benchmark
     << " tf32_cublas=" << f.tf32_cublas << " tf32_cudnn=" << f.tf32_cudnn
     << " CUBLAS_WORKSPACE_CONFIG=" << f.cublas_workspace_config.value_or("(unset)")
     << " fill_uninitialized_memory="
     << (f.fill_uninitialized_memory ? (*f.fill_uninitialized_memory ? "1" : "0")
                                     : "(not in this LibTorch)");
  return os.str();
}

bool SetCublasWorkspaceConfigIfUnset() {
  if (std::getenv(kCublasEnv)) return false;
  setenv(kCublasEnv, kDeterministicCublasWorkspaceConfig, 1);
  return true;
}

DeterministicGuard::DeterministicGuard(OnNondeterministicOp mode, Fill fill)
    : saved_(CurrentDeterminismFlags()) {
  if (!saved_.cublas_workspace_config && torch::cuda::is_available()) {
    // Cannot tell from here whether a cuBLAS handle exists already; say so once.
    static std::once_flag warned;
    std::call_once(warned, [] {
      std::cerr << "trickbench: DeterministicGuard sets CUBLAS_WORKSPACE_CONFIG now; a cuBLAS "
                   "handle created before this keeps its nondeterministic workspace. Set it at "
                   "startup (//determinism:cublas_workspace_config_at_startup).\n";
    });
  }
  DeterminismFlags on;
  on.deterministic_algorithms = true;
  on.deterministic_warn_only = mode == OnNondeterministicOp::kWarn;
  on.cudnn_deterministic = true;
  on.cudnn_benchmark = false;
  on.tf32_cublas = false;
  on.tf32_cudnn = false;
  on.cublas_workspace_config = kDeterministicCublasWorkspaceConfig;
  if (HasFillUninitializedMemorySetting()) on.fill_uninitialized_memory = fill == Fill::kNaN;
  ApplyDeterminismFlags(on);
}

DeterministicGuard::~DeterministicGuard() { ApplyDeterminismFlags(saved_); }

}  // namespace trickbench
