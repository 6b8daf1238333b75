#include "harness/context.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/host.h"
#include "determinism/guard.h"

namespace trickbench {
namespace {

int CollectBlas(struct dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  const std::string name = info->dlpi_name ? info->dlpi_name : "";
  const std::string base = std::filesystem::path(name).filename().string();
  const bool blas = base.rfind("libblas", 0) == 0 || base.rfind("libopenblas", 0) == 0 ||
                    base.rfind("libmkl_rt", 0) == 0 || base.rfind("libblis", 0) == 0 ||
                    base.rfind("libmkl_core", 0) == 0;
  if (blas && out->empty()) {
    std::error_code ec;
    auto real = std::filesystem::canonical(name, ec);
    *out = ec ? name : real.string();
  }
  return 0;
}

std::string ReadCommand(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string BuildSetting(const std::string& config, const std::string& key) {
  const std::string needle = key + "=";
  for (size_t at = config.find(needle); at != std::string::npos; at = config.find(needle, at + 1)) {
    // A whole key: at the start of the settings or after ", " / a space.
    if (at > 0 && config[at - 1] != ' ') continue;
    const size_t from = at + needle.size();
    const size_t end = config.find_first_of(",\n", from);
    return config.substr(from, end == std::string::npos ? std::string::npos : end - from);
  }
  return "";
}

std::string ConfigLineAfter(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  const size_t from = at + marker.size();
  const size_t end = text.find('\n', from);
  std::string rest = text.substr(from, end == std::string::npos ? std::string::npos : end - from);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.pop_back();
  return rest;
}

BlasInUse DescribeBlas(const std::string& provider, const std::string& config) {
  BlasInUse b;
  const std::string build = BuildSetting(config, "BLAS_INFO");
  const std::string base = std::filesystem::path(provider).filename().string();
  if (base.rfind("libtorch_cpu", 0) == 0) {
    // The PyTorch wheels link MKL statically into libtorch_cpu, and nothing loaded before
    // it defines sgemm_.
    b.name = build.empty() ? "unknown" : build;
    b.library = "linked into libtorch_cpu";
  } else if (!provider.empty()) {
    b.name = BlasName(provider);
    b.library = provider;
  } else {
    b.name = BlasName("");
    b.library = "none";
  }
  if (b.name == "mkl") {
    const std::string mkl = ConfigLineAfter(config, "Math Kernel Library Version ");
    if (!mkl.empty()) b.version = "MKL " + mkl;
  } else if (b.name == "openblas") {
    // OpenBLAS says which build and which kernel set it chose for this CPU.
    using GetConfig = const char* (*)();
    if (auto* get = reinterpret_cast<GetConfig>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
      b.version = get();
    }
  }
  if (b.version.empty()) b.version = "unknown";
  return b;
}

std::string BlasProvider() {
  void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
  Dl_info info{};
  if (sgemm == nullptr || dladdr(sgemm, &info) == 0 || info.dli_fname == nullptr) return "";
  std::error_code ec;
  const auto real = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? info.dli_fname : real.string();
}

std::string LoadedBlasLibrary() {
  std::string path;
  dl_iterate_phdr(CollectBlas, &path);
  return path;
}

std::string BlasName(const std::string& p) {
  if (p.empty()) return "none loaded";
  if (p.find("openblas") != std::string::npos) return "openblas";
  if (p.find("mkl") != std::string::npos) return "mkl";
  if (p.find("blis") != std::string::npos) return "blis";
  if (p.find("atlas") != std::string::npos) return "atlas";
  if (p.find("/blas/") != std::string::npos) return "reference blas (netlib)";
  return "unknown";
}

std::string GitRevision() {
  if (const char* v = std::getenv("TRICKBENCH_GIT_REVISION"); v && *v) return v;
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string dir = ws && *ws ? ws : ".";
  std::string rev = ReadCommand("git -C '" + dir + "' rev-parse --short=12 HEAD 2>/dev/null");
  if (rev.empty()) return "unknown";
  if (!ReadCommand("git -C '" + dir + "' status --porcelain --untracked-files=no 2>/dev/null")
           .empty()) {
    rev += "-dirty";
  }
  return rev;
}

Context CaptureContext(const torch::Device& device) {
  Context c;
  c.emplace_back("torch_version", TORCH_VERSION);
  c.emplace_back("libtorch_build",
                 at::show_config().find("CUDA") != std::string::npos && torch::cuda::is_available()
                     ? "cuda"
                     : "cpu");
  c.emplace_back("device", device.str());
  c.emplace_back("device_name",
                 device.is_cuda() ? "cuda device " + std::to_string(device.index()) : CpuModel());
  c.emplace_back("cuda_available", torch::cuda::is_available() ? "true" : "false");
  c.emplace_back("cuda_device_count", std::to_string(torch::cuda::device_count()));
  c.emplace_back("intra_op_threads", std::to_string(at::get_num_threads()));
  c.emplace_back("inter_op_threads", std::to_string(at::get_num_interop_threads()));
  const std::string config = at::show_config();
  const BlasInUse blas = DescribeBlas(BlasProvider(), config);
  c.emplace_back("blas", blas.name);
  c.emplace_back("blas_library", blas.library);
  c.emplace_back("blas_version", blas.version);
  const std::string blas_build = BuildSetting(config, "BLAS_INFO");
  c.emplace_back("blas_build_info", blas_build.empty() ? "unknown" : blas_build);
  c.emplace_back("mkldnn", at::hasMKLDNN() ? "true" : "false");
  // oneDNN (formerly MKL-DNN): the CPU convolution and bf16 matmul kernels.
  const std::string onednn = ConfigLineAfter(config, "MKL-DNN ");
  c.emplace_back("onednn", !at::hasMKLDNN() ? "none" : onednn.empty() ? "unknown" : onednn);
  const std::string capability = ConfigLineAfter(config, "CPU capability usage: ");
  c.emplace_back("cpu_capability", capability.empty() ? "unknown" : capability);
  const std::string backend = ConfigLineAfter(at::get_parallel_info(), "ATen parallel backend: ");
  c.emplace_back("parallel_backend", backend.empty() ? "unknown" : backend);
  const std::string cuda_version = BuildSetting(config, "CUDA_VERSION");
  c.emplace_back("libtorch_cuda_version", cuda_version.empty() ? "none" : cuda_version);
  c.emplace_back("host", HostName());
  c.emplace_back("cpu_model", CpuModel());
  c.emplace_back("cpu_cores", std::to_string(std::thread::hardware_concurrency()));
  c.emplace_back("git_revision", GitRevision());
  c.emplace_back("determinism", Describe(CurrentDeterminismFlags()));
  return c;
}

}  // namespace trickbench
