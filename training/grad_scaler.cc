#include "training/grad_scaler.h"

#include <torch/optim/optimizer.h>

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/TensorOptions.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace trickbench::training {
namespace {

bool HasKernel(const char* op, const torch::Device& device) {
  const auto handle = c10::Dispatcher::singleton().findSchema({op, ""});
  if (!handle) return false;
  const c10::DispatchKey key = c10::computeDispatchKey(at::kFloat, at::kStrided, device);
  return handle->hasKernelForDispatchKey(key);
}

// Fallback of at::_amp_foreach_non_finite_check_and_unscale_, same semantics: the
// finiteness test is on the values as found (before scaling), every grad is scaled.
void UnscaleFallback(const std::vector<torch::Tensor>& grads, torch::Tensor& found_inf,
                     const torch::Tensor& inv_scale) {
  for (const auto& g : grads) {
    found_inf.masked_fill_(g.isfinite().logical_not().any(), 1.0);
    g.mul_(inv_scale.to(g.scalar_type()));
  }
}

// Fallback of at::_amp_update_scale_, same semantics (aten/src/ATen/native/cuda/AmpKernels.cu).
void UpdateScaleFallback(torch::Tensor& scale, torch::Tensor& growth_tracker,
                         const torch::Tensor& found_inf, double growth_factor,
                         double backoff_factor, int64_t growth_interval) {
  if (found_inf.item<float>() != 0) {
    scale.mul_(backoff_factor);
    growth_tracker.fill_(0);
    return;
  }
  const int64_t successful = growth_tracker.item<int>() + 1;
  if (successful == growth_interval) {
    const float grown = scale.item<float>() * static_cast<float>(growth_factor);
    if (std::isfinite(grown)) scale.fill_(grown);  // never grow to inf
    growth_tracker.fill_(0);
  } else {
    growth_tracker.fill_(successful);
  }
}

}  // namespace

bool HasFusedAmpKernels(const torch::Device& device) {
  return HasKernel("aten::_amp_foreach_non_finite_check_and_unscale_", device) &&
         HasKernel("aten::_amp_update_scale_", device);
}

GradScaler::GradScaler(GradScalerOptions options) : options_(options) {
  if (!(options_.init_scale > 0) || !std::isfinite(options_.init_scale)) {
    throw std::invalid_argument("GradScaler: init_scale must be positive and finite");
  }
  if (!(options_.growth_factor > 1) || !std::isfinite(options_.growth_factor)) {
    throw std::invalid_argument("GradScaler: growth_factor must be > 1 and finite");
  }
  if (!(options_.backoff_factor > 0 && options_.backoff_factor < 1)) {
    throw std::invalid_argument("GradScaler: backoff_factor must be in (0, 1)");
  }
  if (options_.growth_interval <= 0) {
    throw std::invalid_argument("GradScaler: growth_interval must be positive");
  }
}

void GradScaler::LazyInit(const torch::Device& device) {
  if (scale_.defined()) return;
  const auto f = torch::TensorOptions().dtype(torch::kFloat).device(device);
  scale_ = torch::full({}, options_.init_scale, f);
  growth_tracker_ = torch::zeros({}, f.dtype(torch::kInt));
  found_inf_ = torch::zeros({}, f);
}

torch::Tensor GradScaler::Scale(const torch::Tensor& loss) {
  if (!options_.enabled) return loss;
  LazyInit(loss.device());
  return loss * scale_.to(loss.device(), /*non_blocking=*/true);
}

void GradScaler::Unscale(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled) return;
  if (unscaled_.count(&optimizer)) {
    throw std::logic_error(
        "GradScaler: Unscale() already called for this optimizer since the last Update()");
  }
  // Group the grads by device: the fused kernel wants one device per call.
  std::map<std::string, std::vector<torch::Tensor>> by_device;
  std::map<std::string, torch::Device> devices;
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& p : group.params()) {
      const torch::Tensor& g = p.grad();
      if (!g.defined()) continue;
      if (g.is_sparse()) throw std::invalid_argument("GradScaler: sparse grads are not supported");
      if (g.scalar_type() == torch::kHalf) {
        throw std::invalid_argument(
            "GradScaler: refusing to unscale fp16 gradients (keep fp32 master params)");
      }
      by_device[g.device().str()].push_back(g);
      devices.emplace(g.device().str(), g.device());
    }
  }
  if (!scale_.defined()) {
    throw std::logic_error("GradScaler: Unscale() before any Scale(): the grads were never scaled");
  }
  // As PyTorch: the reciprocal in double, then float, so 1/2^k is exact.
  const torch::Tensor inv_scale = scale_.to(torch::kDouble).reciprocal().to(torch::kFloat);
  const bool fused = options_.kernels == GradScalerOptions::Kernels::kAuto;
  used_fused_ = true;
  for (auto& [name, grads] : by_device) {
    const torch::Device device = devices.at(name);
    const bool use_fused = fused && HasFusedAmpKernels(device);
    used_fused_ &= use_fused;
    torch::Tensor found =
        torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
    const torch::Tensor inv = inv_scale.to(device, /*non_blocking=*/true);
    if (use_fused) {
      at::_amp_foreach_non_finite_check_and_unscale_(grads, found, inv);
    } else {
      UnscaleFallback(grads, found, inv);
    }
    found_inf_.add_(found.to(found_inf_.device()));
  }
  if (by_device.empty()) used_fused_ = fused && HasFusedAmpKernels(scale_.device());
  unscaled_.insert(&optimizer);
}

bool GradScaler::Step(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled) {
    optimizer.step();
    return true;
  }
  if (!unscaled_.count(&optimizer)) Unscale(optimizer);
  if (found_inf()) return false;
  optimizer.step();
  return true;
}

void GradScaler::Update() {
  if (!options_.enabled) return;
  if (unscaled_.empty()) {
    throw std::logic_error(
        "GradScaler: Update() without an Unscale()/Step() since the last Update()");
  }
  // found_inf_ sums the per-device flags; the kernels treat any non-zero as "found".
  const bool use_fused =
      options_.kernels == GradScalerOptions::Kernels::kAuto && HasFusedAmpKernels(scale_.device());
  if (use_fused) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor,
                           options_.backoff_factor, options_.growth_interval);
  } else {
    UpdateScaleFallback(scale_, growth_tracker_, found_inf_, options_.growth_factor,
                        options_.backoff_factor, options_.growth_interval);
  }
  used_fused_ = use_fused;
  found_inf_.zero_();
  unscaled_.clear();
}

double GradScaler::scale() const {
  if (!options_.enabled) return 1.0;
  return scale_.defined() ? scale_.item<float>() : options_.init_scale;
}

int64_t GradScaler::growth_tracker() const {
  return growth_tracker_.defined() ? growth_tracker_.item<int>() : 0;
}

bool GradScaler::found_inf() const { return found_inf_.defined() && found_inf_.item<float>() != 0; }

}  // namespace trickbench::training
