// The environment a result was measured in, as key/value strings.
//
// Every result file carries this in its Google Benchmark "context" object, so that a
// compare of two runs can tell when numbers are incomparable (other device, LibTorch,
// BLAS, thread count or determinism flags):
//
//   for (const auto& [key, value] : trickbench::CaptureContext(torch::kCPU))
//     benchmark::AddCustomContext(key, value);
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace trickbench {

using Context = std::vector<std::pair<std::string, std::string>>;

// Keys: torch_version, libtorch_build, device, device_name, cuda_available,
// cuda_device_count, intra_op_threads, inter_op_threads, blas, blas_library,
// blas_build_info, mkldnn, host, cpu_model, cpu_cores, git_revision, determinism. The
// device's own facts come from its timing backend (TimingBackend::AddContext).
Context CaptureContext(const torch::Device& device);

// The shared library file that provides BLAS in this process (resolved symlinks,
// e.g. ".../openblas-openmp/libblas.so.3"), or "" when none is loaded.
std::string LoadedBlasLibrary();

// A short name for the BLAS in use: "openblas", "mkl", "reference blas", ...
std::string BlasName(const std::string& library_path);

// HEAD of the git work tree at $BUILD_WORKSPACE_DIRECTORY (set by `bazel run`) or the
// current directory; $TRICKBENCH_GIT_REVISION wins when set; "unknown" otherwise.
std::string GitRevision();

}  // namespace trickbench
