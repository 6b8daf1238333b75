// no_grad_inference (A14, B): inference without autograd bookkeeping.
//
// The same MLP forward three ways: in grad mode (autograd records the graph and keeps
// activations for a backward that never comes), under NoGradGuard, and under
// InferenceMode (which also skips version counters and view tracking). Outputs must be
// bitwise equal: the kernels are the same, only the bookkeeping differs.
#include <torch/nn/modules/container/sequential.h>
#include <torch/utils.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

constexpr trickbench::workloads::MlpSize kMlp{.in = 512, .hidden = 1024, .out = 10, .layers = 3};

class NoGradInference : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    model_ = trickbench::workloads::Mlp(kMlp, s.device);
    input_ = torch::randn({s.params.Int("batch"), kMlp.in}).to(s.device);
  }

  void GradMode() { out_ = model_->forward(input_); }

  void NoGrad() {
    torch::NoGradGuard no_grad;
    out_ = model_->forward(input_);
  }

  void Inference() {
    c10::InferenceMode inference;
    out_ = model_->forward(input_);
  }

  trickbench::Tensors Result() override { return {out_.detach()}; }

  std::string Inactive(const std::string& variant) override {
    if (variant == "grad_mode" && !out_.requires_grad()) return "grad mode output records no graph";
    if (variant == "no_grad" && out_.requires_grad()) return "output still requires grad";
    if (variant == "inference_mode" && !out_.is_inference())
      return "output is not an inference tensor";
    return "";
  }

  int64_t ItemsPerRun() const override { return input_.size(0); }

 private:
  torch::nn::Sequential model_{nullptr};
  torch::Tensor input_, out_;
};

// One forward: the GEMMs' FLOP; the weights read, each layer's fp32 activations written
// once and read once.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const int64_t batch = s.params.Int("batch");
  const double activations = static_cast<double>(batch) * (kMlp.in + kMlp.layers * kMlp.hidden);
  const double weights = static_cast<double>(trickbench::workloads::MlpParameters(kMlp));
  return {.flop = trickbench::workloads::MlpForwardFlop(kMlp, batch),
          .bytes = 4 * (weights + 2 * activations),
          .working_set = 4 * (weights + activations)};
}

}  // namespace

TRICKBENCH_TRICK(no_grad_inference, NoGradInference)
    .Category("Model architecture and training")
    .Source("A14, B")
    .Claim("less memory and time")
    .Expect(trickbench::claim::LessMemory())
    .Expect(trickbench::claim::Faster())
    // 32768 samples: about 170 GFLOP, so an H200 times the GEMMs, not their launches.
    .Axis(trickbench::Axis::Int("batch", {256}).OnCuda({32768}))
    .Work(Work)
    .Variant("grad_mode", &NoGradInference::GradMode)
    .Variant("no_grad", &NoGradInference::NoGrad)
    .Variant("inference_mode", &NoGradInference::Inference)
    .Bitwise();
