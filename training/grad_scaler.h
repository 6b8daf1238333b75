// Dynamic loss scaling for mixed-precision training: the behaviour of PyTorch's
// torch.amp.GradScaler, which LibTorch C++ does not have.
//
// fp16 gradients underflow to zero for small values; multiplying the loss by a large
// scale before backward keeps them representable. Before the optimizer step the grads
// are divided by the scale again; when any of them is inf or NaN the step is skipped
// and the scale backed off, and after `growth_interval` clean steps in a row the
// scale grows, so it tracks the largest value that does not overflow.
//
//   trickbench::training::GradScaler scaler;            // init scale 65536
//   optimizer.zero_grad();
//   {
//     trickbench::training::AutocastGuard autocast(torch::kCUDA);
//     loss = loss_fn(model->forward(x), y);
//   }
//   scaler.Scale(loss).backward();
//   scaler.Unscale(optimizer);     // optional: only to clip or inspect the real grads
//   scaler.Step(optimizer);        // skipped when a grad is inf/NaN
//   scaler.Update();               // back off or grow the scale
//
// Kernels: LibTorch's fused ops at::_amp_foreach_non_finite_check_and_unscale_ and
// at::_amp_update_scale_ are used where the build registers them for the grads'
// device (CUDA in 1.13; CPU too in later versions, asked of the dispatcher at run
// time); elsewhere an equivalent fallback built from ordinary tensor ops. Both keep
// the scale in float32 and give the same scale sequence and the same unscaled grads.
//
// Limits: one scaler per optimizer set (Unscale/Step once per optimizer per step);
// dense grads only; fp16 grads are refused as in PyTorch (unscale them in fp32 master
// params instead).
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <set>

#include "third_party/libtorch/forward.h"

namespace trickbench::training {

struct GradScalerOptions {
  double init_scale = 65536.0;     // 2^16, PyTorch's default
  double growth_factor = 2.0;      // > 1
  double backoff_factor = 0.5;     // in (0, 1)
  int64_t growth_interval = 2000;  // clean steps before growing, > 0
  bool enabled = true;             // false: every call is a pass-through (scale 1, always step)
  // kAuto: LibTorch's fused kernels where registered for the device; kFallback: never.
  enum class Kernels { kAuto, kFallback } kernels = Kernels::kAuto;
};

// Whether this LibTorch registers both fused AMP kernels for `device`.
bool HasFusedAmpKernels(const torch::Device& device);

class GradScaler {
 public:
  // Throws std::invalid_argument for options outside the ranges above.
  explicit GradScaler(GradScalerOptions options = {});

  // loss * scale (the scale moved to loss's device on first use). Disabled: loss.
  torch::Tensor Scale(const torch::Tensor& loss);

  // Divides every grad of `optimizer`'s parameters by the scale, in place, and
  // records whether any was inf or NaN. Once per optimizer between two Update()s:
  // a second call throws std::logic_error (the grads would be divided twice).
  void Unscale(torch::optim::Optimizer& optimizer);

  // Unscales if not done yet, then runs optimizer.step() unless a grad was inf/NaN.
  // Returns whether the step ran. Reads found_inf on the host (one sync on a GPU).
  bool Step(torch::optim::Optimizer& optimizer);

  // Backs off the scale if any unscaled grad since the last Update() was non-finite,
  // else counts a clean step and grows the scale every growth_interval of them.
  // Throws std::logic_error when nothing was unscaled since the last Update().
  void Update();

  double scale() const;            // current scale (host read)
  int64_t growth_tracker() const;  // clean steps since the last growth or backoff
  bool found_inf() const;          // whether an unscale since the last Update() saw an inf/NaN
  // Whether the fused LibTorch kernels did the last Unscale/Update.
  bool used_fused_kernels() const { return used_fused_; }
  const GradScalerOptions& options() const { return options_; }

 private:
  void LazyInit(const torch::Device& device);

  GradScalerOptions options_;
  torch::Tensor scale_;           // float32, 0-dim
  torch::Tensor growth_tracker_;  // int32, 0-dim
  torch::Tensor found_inf_;       // float32, 0-dim: 1 when a non-finite grad was seen
  std::set<const torch::optim::Optimizer*> unscaled_;  // since the last Update()
  bool used_fused_ = false;
};

}  // namespace trickbench::training
