#include "training/autocast.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <stdexcept>
#include <string>

// 2.4 replaced the per-device functions with ones taking the device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define TRICKBENCH_AUTOCAST_DEVICE_API 1
#else
#define TRICKBENCH_AUTOCAST_DEVICE_API 0
#endif

namespace trickbench::training {
namespace {

void CheckDevice(torch::DeviceType device) {
  if (device != torch::kCPU && device != torch::kCUDA) {
    throw std::invalid_argument("autocast: device type " + c10::DeviceTypeName(device) +
                                " is not supported (CPU and CUDA are)");
  }
}

}  // namespace

bool AutocastEnabled(torch::DeviceType device) {
  CheckDevice(device);
#if TRICKBENCH_AUTOCAST_DEVICE_API
  return at::autocast::is_autocast_enabled(device);
#else
  return device == torch::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

at::ScalarType AutocastDtype(torch::DeviceType device) {
  CheckDevice(device);
#if TRICKBENCH_AUTOCAST_DEVICE_API
  return at::autocast::get_autocast_dtype(device);
#else
  return device == torch::kCPU ? at::autocast::get_autocast_cpu_dtype()
                               : at::autocast::get_autocast_gpu_dtype();
#endif
}

void SetAutocastEnabled(torch::DeviceType device, bool enabled) {
  CheckDevice(device);
#if TRICKBENCH_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == torch::kCPU) {
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_enabled(enabled);
  }
#endif
}

void CheckAutocastDtype(torch::DeviceType device, at::ScalarType dtype) {
  CheckDevice(device);
  bool ok = dtype == at::kBFloat16 || dtype == at::kHalf;
#if !TRICKBENCH_AUTOCAST_DEVICE_API
  // Before 2.4 the CPU autocast kernels exist for bfloat16 only.
  if (device == torch::kCPU) ok = dtype == at::kBFloat16;
#endif
  if (!ok) {
    throw std::invalid_argument(std::string("autocast: ") + c10::toString(dtype) +
                                " is not an autocast dtype on " + c10::DeviceTypeName(device) +
                                " in LibTorch " + TORCH_VERSION);
  }
}

void SetAutocastDtype(torch::DeviceType device, at::ScalarType dtype) {
  CheckAutocastDtype(device, dtype);
#if TRICKBENCH_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == torch::kCPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

bool AutocastState::operator==(const AutocastState& o) const {
  return cpu_enabled == o.cpu_enabled && cpu_dtype == o.cpu_dtype && cuda_enabled == o.cuda_enabled &&
         cuda_dtype == o.cuda_dtype && cache_enabled == o.cache_enabled;
}

AutocastState CurrentAutocastState() {
  AutocastState s;
  s.cpu_enabled = AutocastEnabled(torch::kCPU);
  s.cpu_dtype = AutocastDtype(torch::kCPU);
  s.cuda_enabled = AutocastEnabled(torch::kCUDA);
  s.cuda_dtype = AutocastDtype(torch::kCUDA);
  s.cache_enabled = at::autocast::is_autocast_cache_enabled();
  return s;
}

namespace {

// Sets every field without validating the dtypes: they come from a snapshot of what
// LibTorch itself held.
void Apply(const AutocastState& s) {
  SetAutocastEnabled(torch::kCPU, s.cpu_enabled);
  SetAutocastEnabled(torch::kCUDA, s.cuda_enabled);
#if TRICKBENCH_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_dtype(torch::kCPU, s.cpu_dtype);
  at::autocast::set_autocast_dtype(torch::kCUDA, s.cuda_dtype);
#else
  at::autocast::set_autocast_cpu_dtype(s.cpu_dtype);
  at::autocast::set_autocast_gpu_dtype(s.cuda_dtype);
#endif
  at::autocast::set_autocast_cache_enabled(s.cache_enabled);
}

}  // namespace

AutocastGuard::AutocastGuard(torch::DeviceType device, std::optional<at::ScalarType> dtype,
                             bool enabled, bool cache_enabled) {
  CheckDevice(device);
  if (dtype) CheckAutocastDtype(device, *dtype);  // before changing anything
  saved_ = CurrentAutocastState();
  SetAutocastEnabled(device, enabled);
  if (dtype) SetAutocastDtype(device, *dtype);
  at::autocast::set_autocast_cache_enabled(cache_enabled);
  at::autocast::increment_nesting();
}

AutocastGuard::AutocastGuard(const AutocastState& state) {
  saved_ = CurrentAutocastState();
  Apply(state);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  // As torch.autocast.__exit__: the outermost region drops the casted copies.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  Apply(saved_);
}

}  // namespace trickbench::training
