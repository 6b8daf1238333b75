// low_precision_inference (B): inference in 16 bit, or with int8 weights.
//
// The shared MLP (harness/workloads: 512 -> 3 x 1024 -> 10, ReLU), inference, batch 64
// on the CPU and 32768 on CUDA (BatchOf):
//   fp32          the float model
//   16bit         a copy of the model and input in BFloat16 on CPU (oneDNN bf16 GEMMs
//                 here), Half on CUDA
//   int8_dynamic  dynamic quantization, PyTorch's quantize_dynamic for Linear: weights
//                 int8 (per-tensor symmetric, prepacked once), activations quantized per
//                 batch on the fly, int8 GEMM, float output: the quantized::linear_prepack
//                 and quantized::linear_dynamic ops, called through the dispatcher (LibTorch
//                 has no C++ quantize_dynamic)
// int8_dynamic is registered only where it can run: a CPU build (the quantized engines,
// fbgemm/qnnpack/oneDNN, have CPU kernels only) whose LibTorch lists a quantized engine,
// checked when the binary starts (Debian's lists qnnpack and onednn). Otherwise the
// counter int8_dynamic_available is 0 and the variant is absent.
//
// Accuracy beside speed (counters, against the fp32 output of the same instance):
// max_abs_error_vs_fp32, relative_l2_error_vs_fp32, argmax_agreement (fraction of rows
// whose top class is unchanged), and weight_bytes (what the weights occupy).
// Tolerance: atol 0.01 on logits whose typical magnitude is ~0.1. Measured: int8 max
// |diff| 3.9e-3 and relative L2 error 2.7% on an AVX2-only machine (2.6e-3 and 1.5% on
// another, with 8-bit activations before reduce_range); bf16 6e-4 and 0.5%. An int8
// weight step is max|w|/127, activations are quantized to 7 bits per batch
// (reduce_range), and four layers compound it; bf16 keeps 8 significant bits per value
// and layer. About 2.5x the measured int8 error, so a broken kernel (wrong scale, dropped
// bias) still fails the check.
#include <torch/jit.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <ATen/core/dispatch/Dispatcher.h>

#include "harness/kernels.h"
#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace k = trickbench::kernels;
namespace wl = trickbench::workloads;

constexpr wl::MlpSize kMlp{.in = 512, .hidden = 1024, .out = 10, .layers = 3};

// Samples a run: 64 on the CPU; 32768 on CUDA (172 GFLOP, ~220 us at an H200's bf16
// peak), where 64 would time launches. The one place SetUp and Work size from.
int64_t BatchOf(const trickbench::Instance& s) { return s.device.is_cuda() ? 32768 : 64; }

// One forward: the GEMMs' FLOP (int8 ones alike); the weights read once and each
// layer's activations written once and read once, in the variant's dtype (int8: int8
// weights, fp32 activations and their int8 copies).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const int64_t batch = BatchOf(s);
  const double activations =
      static_cast<double>(batch) * static_cast<double>(kMlp.in + kMlp.layers * kMlp.hidden);
  const double weights = static_cast<double>(wl::MlpParameters(kMlp));
  double weight_bytes = 4, activation_bytes = 4;
  if (s.variant == "16bit") weight_bytes = activation_bytes = 2;
  if (s.variant == "int8_dynamic") {
    weight_bytes = 1;
    activation_bytes = 4 + 1;
  }
  return {.flop = wl::MlpForwardFlop(kMlp, batch),
          .bytes = weight_bytes * weights + 2 * activation_bytes * activations,
          .working_set = weight_bytes * weights + activation_bytes * activations};
}

// A CPU build whose LibTorch has a quantized engine can run dynamic quantization.
bool Int8DynamicAvailable() {
#ifdef TRICKBENCH_CUDA
  return false;
#else
  for (const auto engine : at::globalContext().supportedQEngines()) {
    if (engine != at::QEngine::NoQEngine) return true;
  }
  return false;
#endif
}

// One Linear with int8 weights, run as quantized::linear_dynamic.
class DynamicQuantizedLinear {
 public:
  explicit DynamicQuantizedLinear(const torch::nn::Linear& linear) {
    static const auto prepack =
        c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_prepack", "");
    const torch::Tensor w = linear->weight.detach();
    const double scale = std::max(w.abs().max().item<double>(), 1e-12) / 127.0;
    const torch::Tensor qweight = at::quantize_per_tensor(w, scale, 0, torch::kQInt8);
    torch::jit::Stack stack{qweight, c10::optional<torch::Tensor>(linear->bias.detach())};
    prepack.callBoxed(&stack);
    packed_ = stack.at(0);
    weight_bytes_ = qweight.numel() + k::Bytes({linear->bias});
  }

  torch::Tensor Forward(const torch::Tensor& x) const {
    static const auto linear_dynamic =
        c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_dynamic", "");
    // reduce_range as PyTorch's dynamic Linear passes it (quantize_dynamic's modules, version
    // 4 on): activations in 7 bits. FBGEMM's AVX2 kernel multiplies u8 by s8 pairs into a
    // saturating int16 (vpmaddubsw); with 8-bit activations those sums overflow, which
    // put 14 of 640 logits off by up to 0.017 on an AVX2-only machine here.
    torch::jit::Stack stack{x, packed_, /*reduce_range=*/true};
    linear_dynamic.callBoxed(&stack);
    return stack.at(0).toTensor();
  }

  int64_t weight_bytes() const { return weight_bytes_; }

 private:
  c10::IValue packed_;
  int64_t weight_bytes_ = 0;
};

class LowPrecisionInference : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    model_ = wl::Mlp(kMlp, device_);
    input_ = torch::randn({BatchOf(s), kMlp.in}).to(device_);
    low_dtype_ = k::LowPrecisionFloat(device_);
    {
      torch::NoGradGuard no_grad;
      reference_ = model_->forward(input_);
    }
    // Each instance keeps only the weights its variant runs with: the memory claim is
    // about holding the model in fewer bits, so a 16-bit or int8 instance must not also
    // hold the fp32 copy it was made from (SetUp's survivors count in peak_bytes).
    if (s.variant == "16bit") {
      low_model_ = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(model_->clone());
      low_model_->to(low_dtype_);
      low_input_ = input_.to(low_dtype_);
      model_ = nullptr;
    } else if (s.variant == "int8_dynamic" && Int8DynamicAvailable() && !device_.is_cuda()) {
      for (const auto& child : model_->children()) {
        if (auto linear = std::dynamic_pointer_cast<torch::nn::LinearImpl>(child)) {
          int8_layers_.emplace_back(torch::nn::Linear(linear));
        }
      }
      model_ = nullptr;
    }
  }

  void Fp32() {
    c10::InferenceMode inference;
    out_ = model_->forward(input_);
  }

  void LowFloat() {
    c10::InferenceMode inference;
    out_ = low_model_->forward(low_input_);
  }

  void Int8Dynamic() {
    c10::InferenceMode inference;
    torch::Tensor x = input_;
    for (size_t i = 0; i < int8_layers_.size(); ++i) {
      x = int8_layers_[i].Forward(x);
      if (i + 1 < int8_layers_.size()) x = torch::relu(x);
    }
    out_ = x;
  }

  trickbench::Tensors Result() override { return {out_.to(torch::kFloat)}; }

  std::string Inactive(const std::string& variant) override {
    const torch::ScalarType expected = variant == "16bit" ? low_dtype_ : torch::kFloat;
    if (out_.scalar_type() != expected) {
      return std::string("output dtype is ") + c10::toString(out_.scalar_type()) + ", expected " +
             c10::toString(expected);
    }
    if (variant == "16bit" && low_model_->parameters().front().scalar_type() != low_dtype_) {
      return "16-bit model's weights are not 16-bit";
    }
    if (variant == "int8_dynamic" && int8_layers_.size() != 4)
      return "the 4 Linear layers are not all int8";
    // What the body dispatched: four int8 GEMMs, no float linear.
    if (variant == "int8_dynamic" &&
        (OpsRun("quantized::linear_dynamic") != 4 || OpsRun("aten::linear") > 0)) {
      return "the run called quantized::linear_dynamic " +
             std::to_string(OpsRun("quantized::linear_dynamic")) + " times (expected 4) and " +
             "aten::linear " + std::to_string(OpsRun("aten::linear")) + " times";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const torch::Tensor out = out_.to(torch::kFloat), ref = reference_;
    std::map<std::string, double> c = {
        {"max_abs_error_vs_fp32", (out - ref).abs().max().item<double>()},
        {"relative_l2_error_vs_fp32", ((out - ref).norm() / ref.norm()).item<double>()},
        {"argmax_agreement",
         out.argmax(1).eq(ref.argmax(1)).to(torch::kDouble).mean().item<double>()},
        {"int8_dynamic_available", Int8DynamicAvailable() && !device_.is_cuda() ? 1 : 0},
    };
    int64_t weight_bytes = 0;
    if (variant == "int8_dynamic") {
      for (const auto& layer : int8_layers_) weight_bytes += layer.weight_bytes();
      c["quantized_engine"] = static_cast<double>(at::globalContext().qEngine());
    } else {
      for (const auto& p : (variant == "16bit" ? low_model_ : model_)->parameters())
        weight_bytes += k::Bytes({p});
    }
    c["weight_bytes"] = static_cast<double>(weight_bytes);
    return c;
  }

  int64_t ItemsPerRun() const override { return input_.size(0); }

 private:
  torch::Device device_ = torch::kCPU;
  torch::ScalarType low_dtype_ = torch::kBFloat16;
  torch::nn::Sequential model_{nullptr};
  std::shared_ptr<torch::nn::SequentialImpl> low_model_;
  std::vector<DynamicQuantizedLinear> int8_layers_;
  torch::Tensor input_, low_input_, reference_, out_;
};

}  // namespace

TRICKBENCH_TRICK(low_precision_inference, LowPrecisionInference)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("faster, smaller")
    .Expect(trickbench::claim::Faster())
    // Peak memory only for 16-bit: int8_dynamic's prepacked weights live in the quantized
    // engine's own buffers, outside LibTorch's CPU allocator, so the meter misses them
    // (913 KiB peak here against 2.6 MB of int8 weights). weight_bytes, what every
    // variant's weights occupy, is evidence: the dtype decides it, no run could change it.
    .Expect(trickbench::claim::LessMemory().ForVariant("16bit"))
    .Work(Work)
    .Variant("fp32", &LowPrecisionInference::Fp32)
    .Variant("16bit", &LowPrecisionInference::LowFloat)
    .Tolerance(/*rtol=*/0, /*atol=*/0.01);

// Added after the registration above (same file: initialised in order), and only where
// the build can run it; see Int8DynamicAvailable().
[[maybe_unused]] static const bool kInt8DynamicRegistered = [] {
  if (!Int8DynamicAvailable()) return false;
  trickbench::FindTrick("low_precision_inference")
      ->Variant("int8_dynamic", &LowPrecisionInference::Int8Dynamic);
  return true;
}();
