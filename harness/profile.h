// --profile: one run of each variant under LibTorch's profiler, one Chrome trace each.
//
//   std::vector<ProfileTrace> traces;
//   std::string error;
//   if (!ProfileVariants(def, device, /*seed=*/0, "results/channels_last.json", &traces, &error))
//     std::cerr << error;  // "channels_last/nchw: ..." or "profiler: ..."
//   // traces[i].path: results/channels_last.profile/<case>.<variant>.trace.json
//
// The timed rounds say how much faster a variant is; a trace says why: which ATen ops
// and (on CUDA) which kernels ran, and where the time went. Each variant gets a fresh
// seeded instance, SetUp and one untimed run first (lazy initialisation, cuDNN plans,
// allocator growth are not the variant's steady state), then one run recorded through
// Kineto (CPU ops; CUDA kernels and copies on a CUDA device; a LibTorch built without
// Kineto, like Debian's 1.13, gets the legacy profiler's CPU-only trace instead). Open a trace in
// chrome://tracing or https://ui.perfetto.dev. On CUDA the harness's NVTX ranges mark
// the same runs for Nsight Systems.
// The traces sit in a folder next to the result file and are written atomically; the
// profiled runs are not the timed ones (profiling slows ops down by design).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/trick.h"

namespace trickbench {

struct ProfileTrace {
  std::string case_name;
  std::string variant;
  std::string path;
};

// <result file without .json>.profile/<case>.<variant>.trace.json (<variant>.trace.json
// for a trick with one unnamed case).
std::string TracePath(const std::string& result_path, const std::string& case_name,
                      const std::string& variant);

// Every case (on `device`) and variant, in registration order. False with *error naming
// the case and variant (a trick that throws, an unwritable folder, a LibTorch built
// without Kineto); the traces written before the failure are in *traces.
bool ProfileVariants(const TrickDef& def, const torch::Device& device, uint64_t seed,
                     const std::string& result_path, std::vector<ProfileTrace>* traces,
                     std::string* error);

}  // namespace trickbench
