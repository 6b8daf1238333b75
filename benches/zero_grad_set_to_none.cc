// zero_grad_set_to_none (A12, B): drop the grads instead of zeroing them.
//
// One SGD training step of the shared MLP, preceded by zeroing the grads (a memset of
// every grad, then backward accumulates into them) or by setting them to none
// (backward then writes fresh grads, no memset, no read-add-write). Parameters after
// the steps must be bitwise equal: 0 + g == g exactly.
//
// Sizes (ShapeOf): on the CPU an MLP 512-1024x3-10 on 64 samples; on CUDA, case
// "wide_mlp", 4096-4096x4-10 (67 M parameters, 268 MB of grads) on 512 samples, a
// weight-heavy step (about 210 GFLOP) where the grads' traffic is a visible share.
// Cases on the CPU also name the allocator regime (harness/allocator_regime.h): "reused"
// (the step's buffers come from pages the process holds: trickbench's shared process, a
// long training run) or "fresh" (each large buffer a new mapping faulted in page by page:
// a process holding only this model, under glibc's defaults). What an allocation saved
// is worth in time depends on it; the report's faults per iteration show which held.
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>

#include "harness/allocator_regime.h"
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
  if (s.params.String("model") == kCudaCase)
    return {{.in = 4096, .hidden = 4096, .out = 10, .layers = 4}, 512};
  return {{.in = 512, .hidden = 1024, .out = 10, .layers = 3}, 64};
}

class ZeroGradSetToNone : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const Shape shape = ShapeOf(s);
    model_ = wl::Mlp(shape.mlp, s.device);
    optimizer_ =
        std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
    batch_ = wl::ClassificationBatch(shape.batch, shape.mlp.in, shape.mlp.out, s.device);
  }

  void Zero() { Step(/*set_to_none=*/false); }
  void SetToNone() { Step(/*set_to_none=*/true); }

  trickbench::Tensors Result() override { return wl::Parameters(*model_); }

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
    wl::TrainStep(model_, *optimizer_, batch_);
  }

  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  wl::Batch batch_;
  bool grads_undefined_after_zeroing_ = false;
};

// One SGD step: 3x the forward's FLOP; the weights read twice, SGD's pass over
// parameters and grads (3 x the parameters); each activation written once and read about
// five times. The grads: set to none, backward writes them once; zeroed, a memset writes
// them, backward writes its grad beside them and adds it in (4 x the parameters more).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const double params = static_cast<double>(wl::MlpParameters(shape.mlp));
  const double activations = wl::MlpActivations(shape.mlp, shape.batch);
  const double grad_passes = s.variant == "set_to_none" ? 1 : 5;
  return {.flop = 3 * wl::MlpForwardFlop(shape.mlp, shape.batch),
          .bytes = 4 * ((5 + grad_passes) * params + 6 * activations),
          .working_set = 4 * (2 * params + activations)};
}

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
    .Axis(trickbench::Axis::String("model", {""}).OnCuda({kCudaCase}))
    .Axis(trickbench::AllocatorRegimeAxis())
    .Work(Work)
    .TrafficBound()
    .Trains()
    .Variant("zero", &ZeroGradSetToNone::Zero)
    .Variant("set_to_none", &ZeroGradSetToNone::SetToNone)
    // Two steps: the second baseline zeroing finds grads defined and really zeroes them.
    .CheckSteps(3)
    .Bitwise();
