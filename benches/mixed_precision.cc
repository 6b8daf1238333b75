// mixed_precision (A11, B): autocast (bf16 on CPU, fp16 on CUDA) and dynamic loss
// scaling, against an fp32 training step.
//
// One SGD step of the shared MLP three ways: plain fp32; forward under autocast
// (training/autocast.h: Linear layers run in the low-precision dtype, weights are cast
// once per step and cached); and autocast plus training/grad_scaler.h (loss scaled
// before backward, grads unscaled and checked for inf/NaN before the step, the scale
// updated). fp16 needs the scaler to keep small grads from underflowing; bf16 has
// fp32's exponent range and does not, so on CPU the third variant measures the
// scaler's overhead (LibTorch 1.13 has no CPU kernels for it: the fallback runs).
// LibTorch 1.13's CPU autocast is bf16-only.
//
// Equivalence: the result is the last step's logits (as fp32) and the parameters
// after the steps. bf16 keeps 8 significant bits (relative rounding 2^-9 ~ 0.002 per
// value); the 512-1024-1024-1024-10 matmuls accumulate in fp32 but round inputs and
// outputs, so logits of magnitude ~0.1-1 differ from fp32 by up to ~1e-2: atol 2e-2,
// rtol 5e-2. Parameter updates are lr * grad, so they differ far less.
#include "harness/trick.h"
#include "workloads/workloads.h"
#include "training/autocast.h"
#include "training/grad_scaler.h"

namespace {

namespace wl = trickbench::workloads;
namespace tr = trickbench::training;

class MixedPrecision : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Setting& s) override {
    device_ = s.device;
    model_ = wl::Mlp({.in = 512, .hidden = 1024, .out = 10, .layers = 3}, s.device);
    optimizer_ = std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
    batch_ = wl::ClassificationBatch(256, 512, 10, s.device);
    low_precision_ = s.device.is_cuda() ? torch::kHalf : torch::kBFloat16;
    // PyTorch's defaults, except a growth interval short enough to be exercised.
    scaler_ = std::make_unique<tr::GradScaler>(tr::GradScalerOptions{.growth_interval = 100});
  }

  void Fp32() {
    model_->zero_grad(/*set_to_none=*/true);
    auto loss = Forward();
    loss.backward();
    optimizer_->step();
  }

  void Autocast() {
    model_->zero_grad(/*set_to_none=*/true);
    torch::Tensor loss;
    {
      tr::AutocastGuard autocast(device_.type(), low_precision_);
      loss = Forward();
    }
    loss.backward();
    optimizer_->step();
  }

  void AutocastGradScaler() {
    model_->zero_grad(/*set_to_none=*/true);
    torch::Tensor loss;
    {
      tr::AutocastGuard autocast(device_.type(), low_precision_);
      loss = Forward();
    }
    scaler_->Scale(loss).backward();
    if (!scaler_->Step(*optimizer_)) ++skipped_steps_;
    scaler_->Update();
    ++scaled_steps_;
  }

  trickbench::Tensors Result() override {
    trickbench::Tensors out{logits_.to(torch::kFloat)};
    for (const auto& p : wl::Parameters(*model_)) out.push_back(p);
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const auto want = variant == "fp32" ? torch::kFloat : low_precision_;
    if (logits_.scalar_type() != want) {
      return std::string("logits are ") + c10::toString(logits_.scalar_type()) + ", expected " +
             c10::toString(want);
    }
    if (tr::AutocastEnabled(device_.type())) return "autocast is still on after the step";
    if (variant == "autocast_grad_scaler") {
      if (scaled_steps_ == 0) return "the scaler never ran";
      if (skipped_steps_ == scaled_steps_) return "every scaled step was skipped (inf/NaN grads)";
      if (!(scaler_->scale() > 1)) return "the loss scale is not above 1";
    }
    for (const auto& p : model_->parameters()) {
      if (p.scalar_type() != torch::kFloat) return "a parameter is no longer fp32";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    if (variant != "autocast_grad_scaler") return {};
    // Only non-zero figures: a counter that is 0 in every repetition makes Google
    // Benchmark's cv NaN, which the harness cannot read back. Skipped steps are
    // checked in Inactive(); LibTorch 1.13 has no CPU _amp_* kernels, so the scaler's
    // fallback runs here (GradScaler::used_fused_kernels(), tested in //training).
    return {{"loss_scale", scaler_->scale()}, {"scaled_steps", static_cast<double>(scaled_steps_)}};
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  // Logits in the model's compute dtype (kept for the checks); the loss in fp32.
  torch::Tensor Forward() {
    logits_ = model_->forward(batch_.input);
    return torch::nn::functional::cross_entropy(logits_.to(torch::kFloat), batch_.target);
  }

  torch::Device device_ = torch::kCPU;
  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  std::unique_ptr<tr::GradScaler> scaler_;
  wl::Batch batch_;
  torch::ScalarType low_precision_ = torch::kBFloat16;
  torch::Tensor logits_;
  int64_t scaled_steps_ = 0, skipped_steps_ = 0;
};

}  // namespace

TRICKBENCH_TRICK(mixed_precision, MixedPrecision)
    .Category("Model architecture and training")
    .Source("A11, B")
    .Claim("2.75x faster and 37% less memory (BERT); 3.5-25x per NVIDIA")
    .Expect(trickbench::claim::Faster(2.75).OnCuda("BERT on an NVIDIA GPU (3.5-25x per NVIDIA)"))
    .Expect(trickbench::claim::LessMemory(0.37).OnCuda("BERT on an NVIDIA GPU"))
    .Trains()
    .MutationUndetected(trickbench::kDroppedUpdate,
                        "atol 2e-2 on weights of ~0.03: one dropped update moves them 3.4e-3")
    .Variant("fp32", &MixedPrecision::Fp32)
    .Variant("autocast", &MixedPrecision::Autocast)
    .Variant("autocast_grad_scaler", &MixedPrecision::AutocastGradScaler)
    .Tolerance(5e-2, 2e-2);
