// freeze_params (B): fine-tune the head with the backbone frozen (requires_grad=false).
//
// The task in both variants: train only the classifier head of the shared MLP (Adam
// over the head's parameters). The baseline forgets to freeze the backbone, so
// backward still computes (and allocates) a gradient for every backbone weight and
// autograd keeps what that needs; the optimized variant sets requires_grad=false on
// the backbone, so backward stops at the head. The head sees the same forward and the
// same gradient, so its trained parameters are bitwise equal.
//
// Sizes (ShapeOf): on the CPU an MLP 512-1024x4-10 on 256 samples; on CUDA, case
// "wide_mlp", 1024-4096x4-10 on 4096 samples (a forward of about 450 GFLOP, which is
// nearly all the frozen step does).
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/adam.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

constexpr char kCudaCase[] = "wide_mlp";

// The case's MLP and batch: the one place SetUp and Work() read them.
struct Shape {
  wl::MlpSize mlp;
  int64_t batch;
};
Shape ShapeOf(const trickbench::Instance& s) {
  if (s.params.String("case") == kCudaCase)
    return {{.in = 1024, .hidden = 4096, .out = 10, .layers = 4}, 4096};
  return {{.in = 512, .hidden = 1024, .out = 10, .layers = 4}, 256};
}

class FreezeParams : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const Shape shape = ShapeOf(s);
    model_ = wl::Mlp(shape.mlp, s.device);
    head_ = model_->ptr(model_->size() - 1);
    optimizer_ =
        std::make_unique<torch::optim::Adam>(head_->parameters(), torch::optim::AdamOptions(1e-3));
    batch_ = wl::ClassificationBatch(shape.batch, shape.mlp.in, shape.mlp.out, s.device);
  }

  void AllTrainable() { Step(); }

  void FrozenBackbone() {
    for (auto& p : BackboneParams()) p.requires_grad_(false);
    Step();
  }

  trickbench::Tensors Result() override { return wl::Parameters(*head_); }

  std::string Inactive(const std::string& variant) override {
    bool any_backbone_grad = false;
    for (const auto& p : BackboneParams()) any_backbone_grad |= p.grad().defined();
    if (variant == "frozen_backbone" && any_backbone_grad)
      return "a backbone parameter got a gradient";
    if (variant == "all_trainable" && !any_backbone_grad) return "the backbone got no gradient";
    for (const auto& p : head_->parameters()) {
      if (!p.grad().defined()) return "the head got no gradient";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    double trainable = 0, with_grad = 0;
    for (const auto& p : model_->parameters()) {
      if (p.requires_grad()) trainable += p.numel();
      if (p.grad().defined()) with_grad += p.numel();
    }
    return {{"requires_grad_parameters", trainable}, {"parameters_with_grad", with_grad}};
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  std::vector<torch::Tensor> BackboneParams() {
    std::vector<torch::Tensor> out;
    for (size_t i = 0; i + 1 < model_->size(); ++i) {
      for (const auto& p : model_->ptr(i)->parameters()) out.push_back(p);
    }
    return out;
  }

  void Step() {
    model_->zero_grad(/*set_to_none=*/true);
    wl::TrainStep(model_, *optimizer_, batch_);
  }

  torch::nn::Sequential model_{nullptr};
  std::shared_ptr<torch::nn::Module> head_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  wl::Batch batch_;
};

// One step. Both: the forward (the weights read, each activation written and read) and
// Adam on the head (its FLOP and bytes are noise beside the backbone's). All trainable:
// also the backbone's backward, twice the forward's FLOP, the weights read again, their
// grads written, each activation read about four more times. Frozen: backward stops at
// the head.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const double params = static_cast<double>(wl::MlpParameters(shape.mlp));
  const double activations = wl::MlpActivations(shape.mlp, shape.batch);
  const double forward = wl::MlpForwardFlop(shape.mlp, shape.batch);
  if (s.variant == "frozen_backbone") {
    return {.flop = forward,
            .bytes = 4 * (params + 2 * activations),
            .working_set = 4 * (params + activations)};
  }
  return {.flop = 3 * forward,
          .bytes = 4 * (3 * params + 6 * activations),
          .working_set = 4 * (2 * params + activations)};
}

}  // namespace

TRICKBENCH_TRICK(freeze_params, FreezeParams)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("less memory and time")
    .Expect(trickbench::claim::LessMemory())
    .Expect(trickbench::claim::Faster())
    .CudaCases({kCudaCase})
    .Work(Work)
    .Trains()
    .Variant("all_trainable", &FreezeParams::AllTrainable)
    .Variant("frozen_backbone", &FreezeParams::FrozenBackbone)
    .Bitwise();
