// inplace_ops (B): in-place activations (relu_) instead of out-of-place (relu).
//
// A training step (forward, backward, SGD) of the shared MLP, its layers called one by
// one so the activation can be applied either way. ReLU's backward needs only its
// output and Linear's backward only its input, so relu_ may overwrite the Linear
// output: one activation buffer per layer fewer is allocated per step. Not fewer kept
// for backward: out of place, nothing saves the Linear output, so it is freed as soon
// as relu has read it, and the step's peak (reached in backward, with every saved
// activation alive) is the same: 18.05 MiB for both in the default run here, graded
// "no effect" against the claim's "less memory". Case "inference" is where a saving can
// be: without autograd, relu's output out of place is a second buffer alive beside the
// Linear output it reads, in place it is none; that is the peak where the ReLU is the
// widest layer (an expansion, as in a transformer's feed-forward). In a chain of equal
// widths it is not: every Linear has its input and output alive at once either way. Same arithmetic, so the parameters
// (training) and the outputs (inference) are bitwise equal.
#include <torch/nn/functional.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

class InplaceOps : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    inference_ = s.case_name == "inference";
    // Training: wide activations (batch 1024 x 512) against small weights, so the saved
    // activations are a large share of the step's memory. Inference: a transformer's
    // feed-forward shape, 512 -> 4096 -> 512, where the wide ReLU is the peak: out of
    // place its output is a second 16 MiB buffer beside its input.
    model_ = inference_ ? wl::Mlp({.in = 512, .hidden = 4096, .out = 512, .layers = 1}, s.device)
                        : wl::Mlp({.in = 512, .hidden = 512, .out = 10, .layers = 4}, s.device);
    optimizer_ =
        std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
    batch_ = wl::ClassificationBatch(1024, 512, 10, s.device);
  }

  void OutOfPlace() { Run(/*inplace=*/false); }
  void InPlace() { Run(/*inplace=*/true); }

  trickbench::Tensors Result() override {
    return inference_ ? trickbench::Tensors{out_} : wl::Parameters(*model_);
  }

  std::string Inactive(const std::string& variant) override {
    if (variant == "in_place" && !aliased_)
      return "relu_ output does not share the Linear output's memory";
    if (variant == "out_of_place" && aliased_) return "relu output aliases its input";
    return "";
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  torch::Tensor Forward(torch::Tensor x, bool inplace) {
    aliased_ = true;
    for (const auto& module : model_->children()) {
      if (auto* linear = module->as<torch::nn::Linear>()) {
        x = linear->forward(x);
      } else if (module->as<torch::nn::ReLU>()) {
        const void* before = x.data_ptr();
        x = inplace ? x.relu_() : torch::relu(x);
        aliased_ &= x.data_ptr() == before;
      }
    }
    return x;
  }

  void Run(bool inplace) {
    if (inference_) {
      c10::InferenceMode inference;
      out_ = Forward(batch_.input, inplace);
      return;
    }
    Step(inplace);
  }

  void Step(bool inplace) {
    model_->zero_grad(/*set_to_none=*/true);
    auto loss = torch::nn::functional::cross_entropy(Forward(batch_.input, inplace), batch_.target);
    loss.backward();
    optimizer_->step();
  }

  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  wl::Batch batch_;
  bool aliased_ = false;
  bool inference_ = false;
  torch::Tensor out_;
};

}  // namespace

TRICKBENCH_TRICK(inplace_ops, InplaceOps)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("saves memory")
    .Expect(trickbench::claim::LessMemory())
    .Cases({"training", "inference"})
    .Trains({"training"})
    .Variant("out_of_place", &InplaceOps::OutOfPlace)
    .Variant("in_place", &InplaceOps::InPlace)
    .Bitwise();
