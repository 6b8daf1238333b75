// grad_accumulation (A13, B): one optimizer step on a batch of 2048 in one pass, or
// on the same 2048 samples as 2 or 4 accumulated micro-batches. On CUDA, case
// "large_batch": 32768 samples through a 1024-wide MLP (about 620 GFLOP a step).
//
// Peak memory is the point: activations are kept for one micro-batch at a time, so
// they shrink with the number of micro-batches while parameters, grads and optimizer
// state stay. Time goes the other way (smaller matmuls, more passes).
//
// Equivalence: each micro-batch loss is the mean over its samples divided by the
// number of micro-batches, so the accumulated grad is the full-batch mean grad up to
// float summation order: the model is the shared MLP (no BatchNorm, whose batch
// statistics would differ per micro-batch). Parameters and grads after the step agree
// within rtol 1e-4, atol 1e-5 (fp32 sums of 512-2048 terms reordered, and the order
// depends on the CPU's vector width: on an AVX-512 EPYC with the 2.11 wheel, 26 of the
// 65536 elements of a 256x256 weight grad differed by up to 1.9e-6, near-zero elements,
// so atol 1e-6 failed there; the check prints the measured max |diff| when it fails).
// A dropped update is still caught (DroppedUpdateIsCaught).
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

constexpr char kCudaCase[] = "large_batch";

// The case's MLP and batch: the one place SetUp and Work() read them. Narrow and deep
// enough that activations (batch x width floats per layer) outweigh the parameters.
struct Shape {
  wl::MlpSize mlp;
  int64_t batch;
};
Shape ShapeOf(const trickbench::Instance& s) {
  if (s.params.String("case") == kCudaCase)
    return {{.in = 1024, .hidden = 1024, .out = 10, .layers = 3}, 32768};
  return {{.in = 256, .hidden = 256, .out = 10, .layers = 3}, 2048};
}

int64_t MicroBatches(const std::string& variant) {
  return variant == "full_batch" ? 1 : variant == "accumulate_2" ? 2 : 4;
}

class GradAccumulation : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const Shape shape = ShapeOf(s);
    model_ = wl::Mlp(shape.mlp, s.device);
    optimizer_ = std::make_unique<torch::optim::SGD>(model_->parameters(),
                                                     torch::optim::SGDOptions(0.05).momentum(0.9));
    batch_ = wl::ClassificationBatch(shape.batch, shape.mlp.in, shape.mlp.out, s.device);
  }

  void FullBatch() { Step(1); }
  void Accumulate2() { Step(2); }
  void Accumulate4() { Step(4); }

  trickbench::Tensors Result() override {
    trickbench::Tensors out = wl::Parameters(*model_);
    for (const auto& p : model_->parameters()) out.push_back(p.grad().clone());
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const int64_t expected = MicroBatches(variant);
    if (backward_passes_ != expected) {
      return "ran " + std::to_string(backward_passes_) + " backward passes per step, expected " +
             std::to_string(expected);
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"micro_batch", static_cast<double>(ItemsPerRun() / backward_passes_)}};
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  void Step(int64_t micro_batches) {
    trickbench::workloads::AccumulatedStep(model_, *optimizer_, batch_, micro_batches);
    backward_passes_ = micro_batches;
  }

  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  wl::Batch batch_;
  int64_t backward_passes_ = 0;
};

// One SGD step with momentum over the batch, 3x the forward's FLOP however it is split.
// Bytes: per micro-batch the weights read twice and the grads written (accumulated: read
// and written after the first); the update's pass over parameters, grads and momentum
// (5 x the parameters); each activation written once and read about five times.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const double m = static_cast<double>(MicroBatches(s.variant));
  const double params = static_cast<double>(wl::MlpParameters(shape.mlp));
  const double activations = wl::MlpActivations(shape.mlp, shape.batch);
  return {.flop = 3 * wl::MlpForwardFlop(shape.mlp, shape.batch),
          .bytes = 4 * ((2 * m + 1 + 2 * (m - 1) + 5) * params + 6 * activations),
          .working_set = 4 * (3 * params + activations / m)};
}

}  // namespace

TRICKBENCH_TRICK(grad_accumulation, GradAccumulation)
    .Category("Model architecture and training")
    .Source("A13, B")
    .Claim("same update, less memory")
    .Expect(trickbench::claim::LessMemory())
    .CudaCases({kCudaCase})
    .Work(Work)
    .Trains()
    .Variant("full_batch", &GradAccumulation::FullBatch)
    .Variant("accumulate_2", &GradAccumulation::Accumulate2)
    .Variant("accumulate_4", &GradAccumulation::Accumulate4)
    .Tolerance(1e-4, 1e-5);
