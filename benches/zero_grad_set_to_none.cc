// zero_grad_set_to_none (A12, B): drop the grads instead of zeroing them.
//
// One SGD training step of the shared MLP, preceded by zeroing the grads (a memset of
// every grad, then backward accumulates into them) or by setting them to none
// (backward then writes fresh grads, no memset, no read-add-write). Parameters after
// the steps must be bitwise equal: 0 + g == g exactly.
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

class ZeroGradSetToNone : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    model_ =
        trickbench::workloads::Mlp({.in = 512, .hidden = 1024, .out = 10, .layers = 3}, s.device);
    optimizer_ =
        std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
    batch_ = trickbench::workloads::ClassificationBatch(64, 512, 10, s.device);
  }

  void Zero() { Step(/*set_to_none=*/false); }
  void SetToNone() { Step(/*set_to_none=*/true); }

  trickbench::Tensors Result() override { return trickbench::workloads::Parameters(*model_); }

  std::string Inactive(const std::string& variant) override {
    if (variant == "set_to_none" && !grads_undefined_after_zeroing_) {
      return "a grad was still defined after zero_grad(set_to_none=true)";
    }
    if (variant == "zero" && grads_undefined_after_zeroing_) {
      return "grads were undefined after zero_grad(false): nothing was zeroed";
    }
    return "";
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  void Step(bool set_to_none) {
    model_->zero_grad(set_to_none);
    grads_undefined_after_zeroing_ = true;
    for (const auto& p : model_->parameters())
      grads_undefined_after_zeroing_ &= !p.grad().defined();
    trickbench::workloads::TrainStep(model_, *optimizer_, batch_);
  }

  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  trickbench::workloads::Batch batch_;
  bool grads_undefined_after_zeroing_ = false;
};

}  // namespace

TRICKBENCH_TRICK(zero_grad_set_to_none, ZeroGradSetToNone)
    .Category("Model architecture and training")
    .Source("A12, B")
    .Claim("lower memory footprint, moderately faster (no memset, write-only grads)")
    .Expect(trickbench::claim::Faster())
    // B: "set_to_none=True reduces the memory footprint": the grads are freed until
    // backward writes them again, so the forward's activations never share the peak
    // with them.
    .Expect(trickbench::claim::LessMemory())
    .Trains()
    .Variant("zero", &ZeroGradSetToNone::Zero)
    .Variant("set_to_none", &ZeroGradSetToNone::SetToNone)
    // Two steps: the second baseline zeroing finds grads defined and really zeroes them.
    .CheckSteps(3)
    .Bitwise();
