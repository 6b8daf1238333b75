// Every difference between the LibTorch versions trickbench builds against (Debian's
// 1.13 with --config=torch113, the PyTorch 2.x wheel by default) is bridged here, and
// only here: no other file tests TORCH_VERSION_*. Code calls the version-neutral names
// below and reads the same on every version.
//
//   #include "third_party/libtorch/compat.h"
//
//   namespace compat = trickbench::torch_compat;
//   auto state = optimizer.state().find(compat::OptimizerStateKey(param));
//   compat::SetAutocastEnabled(torch::kCPU, true);
//   if (compat::kHasFillUninitializedMemory) ...
//
// Each entry says which version changed what, so that an entry can be deleted once the
// oldest supported LibTorch has the new form. The behaviour changes that need no code
// here (Optimizer::zero_grad() defaulting to set_to_none in 2.x, ...) are listed in
// docs/LIBTORCH_VERSIONS.md.
#pragma once

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/Tensor.h>
#include <torch/version.h>

#include <string>

// True when the LibTorch being compiled against is major.minor or newer.
#define TRICKBENCH_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||             \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

#if !TRICKBENCH_TORCH_AT_LEAST(2, 2)
#include <c10/util/string_utils.h>
#endif

// c10d's collectives: in 2.0 ProcessGroupGloo became a c10d::Backend (a c10d::ProcessGroup
// now holds backends per device type); in 1.13 it is a c10d::ProcessGroup. Both have the
// same allreduce/broadcast/barrier calls. Forward declarations: the c10d headers are
// included only by distributed/.
namespace c10d {
class Backend;
class ProcessGroup;
}  // namespace c10d

// c10::Allocator: 2.3 made allocate() non-const and added the pure virtual copy_data()
// (copy-on-write storages copy through the allocator that made them). An allocator
// written for both versions declares
//   c10::DataPtr allocate(size_t n) TRICKBENCH_ALLOCATE_CONST override;
// and defines copy_data() only #if TRICKBENCH_ALLOCATOR_HAS_COPY_DATA.
#if TRICKBENCH_TORCH_AT_LEAST(2, 3)
#define TRICKBENCH_ALLOCATE_CONST
#define TRICKBENCH_ALLOCATOR_HAS_COPY_DATA 1
#else
#define TRICKBENCH_ALLOCATE_CONST const
#define TRICKBENCH_ALLOCATOR_HAS_COPY_DATA 0
#endif

namespace trickbench::torch_compat {

#if TRICKBENCH_TORCH_AT_LEAST(2, 0)
using CollectiveGroup = c10d::Backend;
#else
using CollectiveGroup = c10d::ProcessGroup;
#endif

// The key of a parameter in Optimizer::state(): its TensorImpl address, as void* since
// 2.2, as text before.
#if TRICKBENCH_TORCH_AT_LEAST(2, 2)
inline void* OptimizerStateKey(const at::Tensor& param) { return param.unsafeGetTensorImpl(); }
#else
inline std::string OptimizerStateKey(const at::Tensor& param) {
  return c10::guts::to_string(param.unsafeGetTensorImpl());
}
#endif

// Autocast switches per device type (kCPU or kCUDA; the caller checks which). 2.4
// replaced the per-device functions (set_cpu_enabled, set_autocast_gpu_dtype, ...) with
// ones taking the device type.
inline bool AutocastEnabled(at::DeviceType device) {
#if TRICKBENCH_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(device);
#else
  return device == at::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

inline void SetAutocastEnabled(at::DeviceType device, bool enabled) {
#if TRICKBENCH_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == at::kCPU) {
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_enabled(enabled);
  }
#endif
}

inline at::ScalarType AutocastDtype(at::DeviceType device) {
#if TRICKBENCH_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(device);
#else
  return device == at::kCPU ? at::autocast::get_autocast_cpu_dtype()
                            : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void SetAutocastDtype(at::DeviceType device, at::ScalarType dtype) {
#if TRICKBENCH_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == at::kCPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

// CPU autocast to float16 (not only bfloat16) came with 2.4's device-generic autocast.
constexpr bool kCpuAutocastHasHalf = TRICKBENCH_TORCH_AT_LEAST(2, 4);

// at::Context's deterministicFillUninitializedMemory setting arrived in 2.1. Without it
// the getter says false and the setter does nothing.
constexpr bool kHasFillUninitializedMemory = TRICKBENCH_TORCH_AT_LEAST(2, 1);

inline bool FillUninitializedMemory() {
#if TRICKBENCH_TORCH_AT_LEAST(2, 1)
  return at::globalContext().deterministicFillUninitializedMemory();
#else
  return false;
#endif
}

inline void SetFillUninitializedMemory(bool fill) {
#if TRICKBENCH_TORCH_AT_LEAST(2, 1)
  at::globalContext().setDeterministicFillUninitializedMemory(fill);
#else
  (void)fill;
#endif
}

}  // namespace trickbench::torch_compat
