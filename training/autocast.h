// Autocast (automatic mixed precision) switched on for a scope and restored after it:
// the C++ counterpart of Python's `with torch.autocast(device_type, dtype):`.
//
//   {
//     trickbench::training::AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
//     auto logits = model->forward(x);   // matmuls and convs run in bf16
//   }                                    // previous enabled flag, dtype, cache flag back
//
// LibTorch has the autocast switches but no scoped object, and their names changed:
// 1.13 has per-device functions (set_cpu_enabled, set_autocast_cpu_dtype, set_enabled
// for CUDA...), 2.4+ takes the device type (set_autocast_enabled(DeviceType, bool)).
// This file hides the difference (through third_party/libtorch/compat.h).
//
// Like torch.autocast, the guard counts nesting and clears the autocast cast cache
// when the outermost guard exits, so casted weights are not kept alive (or stale after
// an optimizer step) beyond the region.
//
// Supported: CPU and CUDA. On LibTorch before 2.4, CPU autocast runs in bfloat16 only;
// asking for another dtype there, or for a dtype autocast never uses (float32, int),
// throws std::invalid_argument instead of silently running in fp32 as Python warns.
#pragma once

#include <torch/types.h>

#include <optional>

namespace trickbench::training {

// Whether autocast is on for `device`, and the dtype it casts to there.
// Throw std::invalid_argument for a device type other than CPU and CUDA.
bool AutocastEnabled(torch::DeviceType device);
at::ScalarType AutocastDtype(torch::DeviceType device);
void SetAutocastEnabled(torch::DeviceType device, bool enabled);
void SetAutocastDtype(torch::DeviceType device, at::ScalarType dtype);

// Throws std::invalid_argument unless this build's autocast can cast to `dtype` on
// `device` (see the header comment).
void CheckAutocastDtype(torch::DeviceType device, at::ScalarType dtype);

// A snapshot of the autocast settings of CPU and CUDA, so that code running later
// (a checkpointed segment recomputed in backward) can run under exactly the same ones.
struct AutocastState {
  bool cpu_enabled = false;
  at::ScalarType cpu_dtype = at::kBFloat16;
  bool cuda_enabled = false;
  at::ScalarType cuda_dtype = at::kHalf;
  bool cache_enabled = true;

  bool operator==(const AutocastState& o) const;
  bool operator!=(const AutocastState& o) const { return !(*this == o); }
};
AutocastState CurrentAutocastState();

class AutocastGuard {
 public:
  // dtype: nullopt keeps the device's current autocast dtype (bf16 on CPU, fp16 on
  // CUDA by default). enabled=false switches autocast off for the scope (the
  // `autocast(enabled=False)` idiom for an fp32 island inside an autocast region).
  explicit AutocastGuard(torch::DeviceType device,
                         std::optional<at::ScalarType> dtype = std::nullopt, bool enabled = true,
                         bool cache_enabled = true);
  // Restores the CPU and CUDA settings of `state` (both devices), e.g. for a recompute.
  explicit AutocastGuard(const AutocastState& state);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  AutocastState saved_;
};

}  // namespace trickbench::training
