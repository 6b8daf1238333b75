#include "training/autocast.h"

#include <ATen/autocast_mode.h>

#include <stdexcept>
#include <string>

#include "third_party/libtorch/compat.h"

namespace trickbench::training {
namespace {

namespace compat = trickbench::torch_compat;

void CheckDevice(torch::DeviceType device) {
  if (device != torch::kCPU && device != torch::kCUDA) {
    throw std::invalid_argument("autocast: device type " + c10::DeviceTypeName(device) +
                                " is not supported (CPU and CUDA are)");
  }
}

}  // namespace

bool AutocastEnabled(torch::DeviceType device) {
  CheckDevice(device);
  return compat::AutocastEnabled(device);
}

at::ScalarType AutocastDtype(torch::DeviceType device) {
  CheckDevice(device);
  return compat::AutocastDtype(device);
}

void SetAutocastEnabled(torch::DeviceType device, bool enabled) {
  CheckDevice(device);
  compat::SetAutocastEnabled(device, enabled);
}

void CheckAutocastDtype(torch::DeviceType device, at::ScalarType dtype) {
  CheckDevice(device);
  bool ok = dtype == at::kBFloat16 || dtype == at::kHalf;
  // Before 2.4 the CPU autocast kernels exist for bfloat16 only.
  if (device == torch::kCPU && !compat::kCpuAutocastHasHalf) ok = dtype == at::kBFloat16;
  if (!ok) {
    throw std::invalid_argument(std::string("autocast: ") + c10::toString(dtype) +
                                " is not an autocast dtype on " + c10::DeviceTypeName(device) +
                                " in LibTorch " + TORCH_VERSION);
  }
}

void SetAutocastDtype(torch::DeviceType device, at::ScalarType dtype) {
  CheckAutocastDtype(device, dtype);
  compat::SetAutocastDtype(device, dtype);
}

bool AutocastState::operator==(const AutocastState& o) const {
  return cpu_enabled == o.cpu_enabled && cpu_dtype == o.cpu_dtype &&
         cuda_enabled == o.cuda_enabled && cuda_dtype == o.cuda_dtype &&
         cache_enabled == o.cache_enabled;
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
  compat::SetAutocastDtype(torch::kCPU, s.cpu_dtype);
  compat::SetAutocastDtype(torch::kCUDA, s.cuda_dtype);
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
