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
// Sizes: on the CPU the shared MLP (512-1024-1024-1024-10, batch 64: the CPU case is
// measured, not graded, and on a CPU without AVX512-BF16 or AMX an autocast step is ~30x
// slower than fp32: 1.5 s against 53 ms at batch 256 on an AVX2-only host). On CUDA, case
// "bert_base_ffn": the article's figures are for BERT-base, whose time is in its
// 768-wide layers at batch 32 x sequence 128 = 4096 token rows; workloads/ has no
// transformer layer, so a stand-in: LayerNorm(768) -> Linear 768-3072 -> GELU ->
// Linear 3072-768 (BERT-base's feed-forward sublayer, two thirds of its FLOP) -> a
// 768-2 classifier head per token, on 4096 rows. The CPU sizes are launch-bound on a
// GPU and would time launches, not tensor cores.
//
// Equivalence: the last step's logits (as fp32), the parameters after the steps, and
// per parameter the update over the steps measured against g0, that parameter's fp32
// gradient at the start (computed in SetUp, the same in every variant's instance):
// its size in fp32 steps, |theta_0 - theta| / (lr |g0|), and its direction,
// cos(theta_0 - theta, g0). The weights alone cannot see an update: weights ~0.03 move
// by lr * grad ~1e-4 per step, far below what bf16 logits need. Element by element the
// updates cannot either: a pre-activation near 0 that rounds to the other side of the
// ReLU in bf16 flips a whole row of the gradient (measured: updates differ by up to
// 1.4 fp32 steps in single elements), as much as a lost step. Their size and direction
// per parameter average over those rows: a dropped update (1 of CheckSteps() = 2)
// halves the size (2 -> 1 step), while bf16 moved it by at most 0.004 steps and the
// cosine (0.997-1.0) by at most 0.003 (measured, CPU, 2 steps, batch 256; at batch
// 64 the largest difference of any compared value was 0.0065). bf16 keeps 8
// significant bits (2^-9 per rounding); the 512-1024-1024-1024-10 matmuls accumulate in
// fp32 but round inputs and outputs, so logits of magnitude ~0.1-1 differ from fp32 by up
// to ~1e-2: atol 2e-2, rtol 5e-2, which the size's halving exceeds 10 times over.
#include <torch/nn/functional.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/optim/sgd.h>

#include "harness/trick.h"
#include "workloads/bert_layer.h"
#include "workloads/workloads.h"
#include "training/autocast.h"
#include "training/grad_scaler.h"

namespace {

namespace wl = trickbench::workloads;
namespace tr = trickbench::training;

constexpr double kLearningRate = 0.01;
constexpr char kBertCase[] = "bert_base_ffn";
constexpr int64_t kBertTokens = 32 * 128;
constexpr wl::MlpSize kMlp{.in = 512, .hidden = 1024, .out = 10, .layers = 3};
constexpr int64_t kMlpBatch = 64;

class MixedPrecision : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    if (s.params.String("case") == kBertCase) {
      model_ = wl::BertFeedForwardHead(s.device);
      batch_ = wl::ClassificationBatch(kBertTokens, wl::kBertBaseHidden, 2, s.device);
    } else {
      model_ = wl::Mlp(kMlp, s.device);
      batch_ = wl::ClassificationBatch(kMlpBatch, kMlp.in, kMlp.out, s.device);
    }
    optimizer_ = std::make_unique<torch::optim::SGD>(model_->parameters(),
                                                     torch::optim::SGDOptions(kLearningRate));
    // The reference copies live on the host: on the device they would count in every
    // variant's peak and dilute the memory saving being graded.
    initial_ = wl::HostParameters(*model_);
    // g0, the yardstick of Result()'s update size and direction: one fp32 gradient.
    model_->zero_grad(/*set_to_none=*/true);
    Forward().backward();
    for (const auto& p : model_->parameters()) initial_grad_.push_back(p.grad().detach().cpu());
    model_->zero_grad(/*set_to_none=*/true);
    logits_ = torch::Tensor();
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
    const auto params = wl::HostParameters(*model_);
    out.insert(out.end(), params.begin(), params.end());
    const auto [steps, cosines] = wl::UpdateInSteps(initial_, params, initial_grad_, kLearningRate);
    out.push_back(steps);
    out.push_back(cosines);
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
  trickbench::Tensors initial_, initial_grad_;  // theta_0 and the fp32 gradient there
  int64_t scaled_steps_ = 0, skipped_steps_ = 0;
};

// One SGD step: 3x the forward's FLOP in every variant (the floor takes tensor-core
// peak for all). Bytes: fp32, the weights read twice, grads written, SGD's pass over
// both (6 x the parameters) and each activation written once and read about five times;
// autocast casts the weights once (4 + 2 bytes each), reads the 2-byte copies twice and
// moves half-width activations; the scaler adds a pass over the grads (unscale) and a
// read (the inf/NaN check). BERT-base's feed-forward sublayer per token: LayerNorm, 768
// -> 3072, GELU, 3072 -> 768 (and the 2-class head).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  double flop, params, activations;
  if (s.params.String("case") == kBertCase) {
    const double h = wl::kBertBaseHidden, ffn = wl::kBertBaseFfn, rows = kBertTokens;
    flop = 2 * rows * (2 * h * ffn + 2 * h);
    params = 2 * h * ffn + ffn + 5 * h + 2;  // LayerNorm 2h, biases ffn + h, head 2h + 2
    activations = rows * (3 * h + 2 * ffn + 2);
  } else {
    flop = wl::MlpForwardFlop(kMlp, kMlpBatch);
    params = static_cast<double>(wl::MlpParameters(kMlp));
    activations =
        static_cast<double>(kMlpBatch) * (kMlp.in + 2 * kMlp.layers * kMlp.hidden + kMlp.out);
  }
  if (s.variant == "fp32") {
    return {.flop = 3 * flop,
            .bytes = 4 * (6 * params + 6 * activations),
            .working_set = 4 * (3 * params + activations)};
  }
  const double scaler = s.variant == "autocast_grad_scaler" ? 3 * 4 * params : 0;
  return {.flop = 3 * flop,
          .bytes = (4 + 2 + 2 * 2) * params + 4 * 4 * params + 2 * 6 * activations + scaler,
          .working_set = (3 * 4 + 2) * params + 2 * activations};
}

}  // namespace

TRICKBENCH_TRICK(mixed_precision, MixedPrecision)
    .Category("Model architecture and training")
    .Source("A11, B")
    .Claim("2.75x faster and 37% less memory (BERT); 3.5-25x per NVIDIA")
    .Expect(trickbench::claim::Faster(2.75)
                .ForCase("bert_base_ffn")
                .OnCuda("BERT on an NVIDIA GPU (3.5-25x per NVIDIA); graded on BERT-base's "
                        "feed-forward shapes"))
    .Expect(trickbench::claim::LessMemory(0.37)
                .ForCase("bert_base_ffn")
                .OnCuda("BERT on an NVIDIA GPU; graded on BERT-base's feed-forward shapes"))
    // CUDA: 4096 tokens, about 116 GFLOP a step.
    .CudaCases({kBertCase})
    .Work(Work)
    .Trains()
    .Variant("fp32", &MixedPrecision::Fp32)
    .Variant("autocast", &MixedPrecision::Autocast)
    .Variant("autocast_grad_scaler", &MixedPrecision::AutocastGradScaler)
    .Tolerance(5e-2, 2e-2);
