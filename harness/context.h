// The environment a result was measured in, as key/value strings.
//
// Every result file carries this in its "context" object, so that a compare of two runs
// can tell when numbers are incomparable (other device, LibTorch, BLAS, thread count or
// determinism flags):
//
//   for (const auto& [key, value] : trickbench::CaptureContext(torch::kCPU))
//     std::cout << key << ": " << value << "\n";   // torch_version: 2.11.0, ...
#pragma once

#include <torch/types.h>

#include <string>
#include <utility>
#include <vector>

namespace trickbench {

using Context = std::vector<std::pair<std::string, std::string>>;

// Keys: torch_version, libtorch_build, device, device_name, cuda_available,
// cuda_device_count, intra_op_threads, inter_op_threads, blas, blas_library,
// blas_version, blas_build_info, mkldnn, onednn, cpu_capability, parallel_backend,
// libtorch_cuda_version, host, cpu_model, cpu_cores, git_revision, determinism. The
// device's own facts come from its timing backend (TimingBackend::AddContext).
//   blas            "openblas", "mkl", "reference blas (netlib)", "none loaded"...
//   blas_library    the loaded library file, or "linked into libtorch_cpu" (the PyTorch
//                   wheels link MKL statically), or "none"
//   blas_version    MKL's version line, OpenBLAS's openblas_get_config() (its version
//                   and the kernel set it picked for this CPU), or "unknown"
//   onednn          oneDNN's version and commit ("v3.10.2 (Git Hash f1d4...)"), "none"
//   cpu_capability  the vector ISA ATen dispatches its CPU kernels to ("AVX512")
//   libtorch_cuda_version  the CUDA LibTorch was built for ("13.0"), or "none"
Context CaptureContext(const torch::Device& device);

// The shared library file that provides BLAS in this process (resolved symlinks,
// e.g. ".../openblas-openmp/libblas.so.3"), or "" when none is loaded.
std::string LoadedBlasLibrary();

// A short name for the BLAS in use: "openblas", "mkl", "reference blas", ...
std::string BlasName(const std::string& library_path);

// The library file whose sgemm_ this process resolves to (resolved symlinks), "" when
// none defines it. That is the BLAS LibTorch's CPU matmuls call: libtorch_cpu calls
// sgemm_ through its PLT, and a PyTorch wheel's libtorch_cpu exports the sgemm_ of the
// MKL linked into it, so a system libblas that comes earlier in the lookup order (a trick
// linking OpenCV loads OpenBLAS's) takes those calls over. Which library is merely
// loaded (LoadedBlasLibrary) does not say that.
std::string BlasProvider();

// The BLAS a process uses, from BlasProvider() (`provider`) and LibTorch's build
// configuration (`config`: at::show_config(), which names a statically linked MKL).
struct BlasInUse {
  std::string name;
  std::string library;
  std::string version;
};
BlasInUse DescribeBlas(const std::string& provider, const std::string& config);

// From at::show_config() text: the value of a build setting ("BLAS_INFO" -> "mkl"),
// "" when absent; and the rest of the first line after `marker` ("MKL-DNN " -> "v3.10.2
// (Git Hash ...)"), "" when absent.
std::string BuildSetting(const std::string& config, const std::string& key);
std::string ConfigLineAfter(const std::string& text, const std::string& marker);

// HEAD of the git work tree at $BUILD_WORKSPACE_DIRECTORY (set by `bazel run`) or the
// current directory; $TRICKBENCH_GIT_REVISION wins when set; "unknown" otherwise.
std::string GitRevision();

}  // namespace trickbench
