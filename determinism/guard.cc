#include "determinism/guard.h"

#include <ATen/Context.h>

#include <cstdlib>
#include <sstream>

namespace trickbench {
namespace {

// ":4096:8" is one of the two settings cuBLAS documents as deterministic.
constexpr char kCublasWorkspaceConfig[] = ":4096:8";
constexpr char kCublasEnv[] = "CUBLAS_WORKSPACE_CONFIG";

}  // namespace

bool DeterminismFlags::operator==(const DeterminismFlags& o) const {
  return deterministic_algorithms == o.deterministic_algorithms &&
         deterministic_warn_only == o.deterministic_warn_only &&
         cudnn_deterministic == o.cudnn_deterministic && cudnn_benchmark == o.cudnn_benchmark &&
         tf32_cublas == o.tf32_cublas && tf32_cudnn == o.tf32_cudnn &&
         cublas_workspace_config == o.cublas_workspace_config;
}

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
}

std::string Describe(const DeterminismFlags& f) {
  std::ostringstream os;
  os << "deterministic_algorithms=" << f.deterministic_algorithms
     << (f.deterministic_warn_only ? " (warn only)" : "")
     << " cudnn_deterministic=" << f.cudnn_deterministic
     << " cudnn_benchmark=" << f.cudnn_benchmark << " tf32_cublas=" << f.tf32_cublas
     << " tf32_cudnn=" << f.tf32_cudnn
     << " CUBLAS_WORKSPACE_CONFIG=" << f.cublas_workspace_config.value_or("(unset)");
  return os.str();
}

DeterministicGuard::DeterministicGuard(OnNondeterministicOp mode)
    : saved_(CurrentDeterminismFlags()) {
  DeterminismFlags on;
  on.deterministic_algorithms = true;
  on.deterministic_warn_only = mode == OnNondeterministicOp::kWarn;
  on.cudnn_deterministic = true;
  on.cudnn_benchmark = false;
  on.tf32_cublas = false;
  on.tf32_cudnn = false;
  on.cublas_workspace_config = kCublasWorkspaceConfig;
  ApplyDeterminismFlags(on);
}

DeterministicGuard::~DeterministicGuard() { ApplyDeterminismFlags(saved_); }

}  // namespace trickbench
