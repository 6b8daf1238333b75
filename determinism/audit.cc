#include "determinism/audit.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "determinism/guard.h"

namespace trickbench {
namespace {

const char* OnOff(bool on) { return on ? "on" : "off"; }

// Whether `name` was in the environment the process started with (/proc/self/environ),
// as opposed to set by the process itself (setenv before main, or later).
bool InStartEnvironment(const std::string& name) {
  std::ifstream in("/proc/self/environ", std::ios::binary);
  const std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = name + "=";
  for (size_t at = 0; at < env.size();) {
    const size_t end = env.find('\0', at);
    if (env.compare(at, key.size(), key) == 0) return true;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

Precondition Judged(std::string name, std::string state, bool ok, bool applies, std::string fix,
                    std::string why) {
  Precondition p;
  p.name = std::move(name);
  p.state = std::move(state);
  p.status =
      !applies ? Precondition::kNotApplicable : (ok ? Precondition::kOk : Precondition::kNotOk);
  if (p.status == Precondition::kNotOk) p.fix = std::move(fix);
  p.why = std::move(why);
  return p;
}

Precondition Advice(std::string name, std::string state, std::string why) {
  Precondition p;
  p.name = std::move(name);
  p.state = std::move(state);
  p.status = Precondition::kAdvice;
  p.why = std::move(why);
  return p;
}

}  // namespace

const char* StatusName(Precondition::Status s) {
  switch (s) {
    case Precondition::kOk:
      return "ok";
    case Precondition::kNotOk:
      return "NOT OK";
    case Precondition::kNotApplicable:
      return "n/a";
    case Precondition::kAdvice:
      return "advice";
  }
  return "?";
}

bool ParseStatus(const std::string& name, Precondition::Status* s) {
  for (const auto st : {Precondition::kOk, Precondition::kNotOk, Precondition::kNotApplicable,
                        Precondition::kAdvice}) {
    if (name == StatusName(st)) {
      *s = st;
      return true;
    }
  }
  return false;
}

std::vector<Precondition> AuditDeterminism() {
  return AuditDeterminism(CurrentDeterminismFlags(), torch::cuda::is_available());
}

std::vector<Precondition> AuditDeterminism(const DeterminismFlags& f, bool cuda) {
  std::vector<Precondition> out;

  out.push_back(Judged(
      "deterministic_algorithms",
      f.deterministic_algorithms ? (f.deterministic_warn_only ? "on (warn only)" : "on") : "off",
      f.deterministic_algorithms && !f.deterministic_warn_only, true,
      "at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false), or "
      "DeterministicGuard",
      "ops with a nondeterministic kernel (index_add_, scatter_add_, some backward passes on "
      "CUDA) otherwise run it silently; in warn-only mode they still run it"));
  out.push_back(Judged("cudnn_deterministic", OnOff(f.cudnn_deterministic), f.cudnn_deterministic,
                       cuda, "at::globalContext().setDeterministicCuDNN(true)",
                       "cuDNN may pick a convolution algorithm whose sums run in a "
                       "scheduling-dependent order"));
  out.push_back(Judged("cudnn_benchmark", OnOff(f.cudnn_benchmark), !f.cudnn_benchmark, cuda,
                       "at::globalContext().setBenchmarkCuDNN(false)",
                       "autotuning times candidate algorithms and keeps the fastest, which can "
                       "differ from one run to the next"));
  out.push_back(Judged(
      "tf32", std::string("cuBLAS ") + OnOff(f.tf32_cublas) + ", cuDNN " + OnOff(f.tf32_cudnn),
      !f.tf32_cublas && !f.tf32_cudnn, cuda,
      "at::globalContext().setAllowTF32CuBLAS(false) and setAllowTF32CuDNN(false)",
      "TF32 rounds matmul and convolution inputs to 10-bit mantissas: repeatable "
      "on one GPU, but unlike fp32, and unlike another GPU generation, so a "
      "golden trace from another machine does not match"));

  const std::string cublas = f.cublas_workspace_config.value_or("");
  const bool cublas_ok = cublas == ":4096:8" || cublas == ":16:8";
  std::string cublas_state = f.cublas_workspace_config ? cublas : "unset";
  if (f.cublas_workspace_config) {
    cublas_state += InStartEnvironment("CUBLAS_WORKSPACE_CONFIG")
                        ? " (from the environment)"
                        : " (set by this process: it counts only if set before the first "
                          "cuBLAS handle)";
  }
  out.push_back(Judged("cublas_workspace_config", cublas_state, cublas_ok, cuda,
                       "CUBLAS_WORKSPACE_CONFIG=:4096:8 in the environment, or link "
                       "//determinism:cublas_workspace_config_at_startup (sets it before main)",
                       "cuBLAS splits a GEMM's reduction over a workspace in a "
                       "scheduling-dependent way unless it is one of the two fixed configs; it "
                       "reads the variable once, when its first handle is created"));

  if (f.fill_uninitialized_memory) {
    out.push_back(Judged(
        "fill_uninitialized_memory", OnOff(*f.fill_uninitialized_memory),
        *f.fill_uninitialized_memory, true,
        "leave LibTorch's default on (DeterministicGuard with Fill::kNaN)",
        "under deterministic algorithms torch::empty & co. fill new memory with NaN, so a read "
        "of uninitialised memory shows at once instead of varying silently; it costs one memset "
        "per allocation"));
  } else {
    out.push_back(Judged("fill_uninitialized_memory", "not in this LibTorch (before 2.1)", true,
                         false, "", "LibTorch before 2.1 cannot fill uninitialised memory"));
  }

  const char* omp = std::getenv("OMP_NUM_THREADS");
  out.push_back(Advice("intra_op_threads",
                       std::to_string(at::get_num_threads()) + " (OMP_NUM_THREADS " +
                           (omp ? std::string("=") + omp : std::string("unset")) + ")",
                       "a reduction split over N threads adds in an order that depends on N: "
                       "runs are bitwise equal only at the same count (the default follows the "
                       "machine's cores), across counts only within a tolerance"));
  out.push_back(Advice("loader_worker_seeding", "not visible from the process",
                       "random augmentation in DataLoader workers must draw from a generator of "
                       "its own per sample (PerSampleSeeded, seeded_dataset.h), or the result "
                       "depends on which worker took which sample; the gate's worker-count tier "
                       "catches it"));
  return out;
}

bool AuditPasses(const std::vector<Precondition>& audit) {
  for (const auto& p : audit) {
    if (p.status == Precondition::kNotOk) return false;
  }
  return true;
}

std::string FormatAudit(const std::vector<Precondition>& audit) {
  size_t name_w = 0, state_w = 0;
  for (const auto& p : audit) {
    name_w = std::max(name_w, p.name.size());
    state_w = std::max(state_w, p.state.size());
  }
  std::ostringstream os;
  for (const auto& p : audit) {
    os << p.name << std::string(name_w - p.name.size() + 2, ' ') << p.state
       << std::string(state_w - p.state.size() + 2, ' ') << StatusName(p.status) << "\n";
    if (!p.fix.empty()) os << "    set: " << p.fix << "\n";
    // What is fine or does not apply here needs no reason; what to fix, or keep in mind, does.
    if (p.status == Precondition::kNotOk || p.status == Precondition::kAdvice) {
      os << "    why: " << p.why << "\n";
    }
  }
  return os.str();
}

}  // namespace trickbench
