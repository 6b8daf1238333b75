// accumulation_batchnorm (A13, B): gradient accumulation is not the large batch when the
// model has BatchNorm.
//
// Two MLPs with a normalization after every hidden Linear, identical but for that layer:
// BatchNorm1d in one, GroupNorm (8 groups) in the other. Each run is one SGD step of
// both on the same batch of 256 (4096 on CUDA, wider layers: ShapeOf): in one pass
// (full_batch), or as 4 accumulated micro-batches of 64 (1024) (accumulate_4), each
// micro-batch loss scaled by 1/4.
//
// BatchNorm normalizes with the statistics of the batch it sees, so the accumulated
// gradient is that of a different function (four micro-batch statistics, not one), and
// its running statistics get four momentum updates per step instead of one. GroupNorm
// normalizes each sample on its own, so accumulation gives the full-batch gradient up to
// float summation order. That is the equivalence check: the GroupNorm model's parameters
// and grads after the steps match full_batch within rtol 1e-4, atol 1e-6 (the tolerance
// of grad_accumulation, which trains the plain MLP the same way). The caveat is a
// counter: each variant's BatchNorm (and GroupNorm) model is compared with the same model
// trained with full batches from the same start, and bn_update_max_abs_diff is the
// largest parameter difference (0 for full_batch itself; gn_update_max_abs_diff shows
// the GroupNorm one vanishing to float noise).
//
// The time and memory of accumulation itself are grad_accumulation's subject: no claim.
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/optim/sgd.h>

#include <algorithm>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

constexpr int64_t kClasses = 10, kMicroBatches = 4;

struct Shape {
  int64_t batch, in, hidden;
};

// The CPU's batch 256 of 64 inputs, 128 wide; on CUDA 4096 samples of 1024 inputs, 2048
// wide, where the CPU's sizes would time launches. The one place SetUp and Work size from.
Shape ShapeOf(const trickbench::Instance& s) {
  return s.device.is_cuda() ? Shape{4096, 1024, 2048} : Shape{256, 64, 128};
}

// One step of both models: forward and backward of their Linear layers (backward twice
// the forward, the first layer's input gradient included, as autograd skips it only for
// the input, a small share), in either variant (micro-batches split the same samples).
// Bytes, fp32: the weights read forward and backward, their gradients written and the
// SGD update's reads and writes (~8 passes); each hidden activation ~10 times (Linear's
// write, the norm's and ReLU's read and write, the backward's).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const double weights = static_cast<double>(shape.in * shape.hidden + shape.hidden * shape.hidden +
                                             shape.hidden * kClasses);
  const double batch = static_cast<double>(shape.batch);
  const double activations = batch * static_cast<double>(shape.in + 2 * shape.hidden + kClasses);
  const double micro = s.variant == "accumulate_4" ? kMicroBatches : 1;
  return {.flop = 2 * 3 * 2 * batch * weights,
          .bytes = 2 * 4 * ((2 * micro + 6) * weights + 10 * activations),
          .working_set = 2 * 4 * (3 * weights + activations)};
}

torch::nn::Sequential NormMlp(const Shape& shape, bool batch_norm, const torch::Device& device) {
  torch::nn::Sequential model;
  int64_t width = shape.in;
  for (int i = 0; i < 2; ++i) {
    model->push_back(torch::nn::Linear(width, shape.hidden));
    if (batch_norm) {
      model->push_back(torch::nn::BatchNorm1d(shape.hidden));
    } else {
      model->push_back(torch::nn::GroupNorm(8, shape.hidden));
    }
    model->push_back(torch::nn::ReLU());
    width = shape.hidden;
  }
  model->push_back(torch::nn::Linear(width, kClasses));
  model->to(device);
  return model;
}

std::unique_ptr<torch::optim::SGD> Sgd(torch::nn::Sequential& model) {
  return std::make_unique<torch::optim::SGD>(model->parameters(),
                                             torch::optim::SGDOptions(0.05).momentum(0.9));
}

// One model, its optimizer, and a copy of its starting point (for the reference run).
struct Trained {
  Trained(const Shape& shape, bool batch_norm, const torch::Device& device)
      : model(NormMlp(shape, batch_norm, device)), optimizer(Sgd(model)), start(Copy(model)) {}

  void Step(const wl::Batch& batch, int64_t micro_batches) {
    wl::AccumulatedStep(model, *optimizer, batch, micro_batches);
  }

  // Largest parameter difference from `steps` full-batch steps of the same start.
  double MaxDiffFromFullBatch(const wl::Batch& batch, int64_t steps) const {
    Trained reference(Copy(start));
    for (int64_t s = 0; s < steps; ++s) reference.Step(batch, 1);
    double max = 0;
    const auto mine = model->parameters(), theirs = reference.model->parameters();
    for (size_t i = 0; i < mine.size(); ++i) {
      max = std::max(max, (mine[i] - theirs[i]).abs().max().item<double>());
    }
    return max;
  }

  torch::nn::Sequential model;
  std::unique_ptr<torch::optim::SGD> optimizer;
  torch::nn::Sequential start;

 private:
  // Trains `model` from where it is, with a fresh optimizer.
  explicit Trained(torch::nn::Sequential model) : model(model), optimizer(Sgd(this->model)) {}

  static torch::nn::Sequential Copy(const torch::nn::Sequential& m) {
    return torch::nn::Sequential(std::dynamic_pointer_cast<torch::nn::SequentialImpl>(m->clone()));
  }
};

class GradAccumBatchNorm : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const Shape shape = ShapeOf(s);
    bn_ = std::make_unique<Trained>(shape, /*batch_norm=*/true, s.device);
    gn_ = std::make_unique<Trained>(shape, /*batch_norm=*/false, s.device);
    batch_ = wl::ClassificationBatch(shape.batch, shape.in, kClasses, s.device);
  }

  void FullBatch() { Step(1); }
  void Accumulate4() { Step(kMicroBatches); }

  trickbench::Tensors Result() override {
    trickbench::Tensors out = wl::Parameters(*gn_->model);
    for (const auto& p : gn_->model->parameters()) out.push_back(p.grad().clone());
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const int64_t expected = variant == "full_batch" ? 1 : kMicroBatches;
    if (micro_batches_ != expected) {
      return "ran " + std::to_string(micro_batches_) + " backward passes per step, expected " +
             std::to_string(expected);
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"micro_batch", static_cast<double>(batch_.input.size(0) / micro_batches_)},
            {"bn_update_max_abs_diff", bn_->MaxDiffFromFullBatch(batch_, steps_)},
            {"gn_update_max_abs_diff", gn_->MaxDiffFromFullBatch(batch_, steps_)}};
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  void Step(int64_t micro_batches) {
    bn_->Step(batch_, micro_batches);
    gn_->Step(batch_, micro_batches);
    micro_batches_ = micro_batches;
    ++steps_;
  }

  std::unique_ptr<Trained> bn_, gn_;
  wl::Batch batch_;
  int64_t micro_batches_ = 0;
  int64_t steps_ = 0;
};

}  // namespace

TRICKBENCH_TRICK(accumulation_batchnorm, GradAccumBatchNorm)
    .Category("Model architecture and training")
    .Source("A13, B")
    .Claim("accumulation is not equivalent under BatchNorm (statistics per micro-batch)")
    .Expect(trickbench::claim::More(
        "bn_update_max_abs_diff",
        "largest |difference| of BatchNorm's running statistics from a full-batch step's, "
        "after the checks' steps"))
    .Work(Work)
    .Trains()
    .Variant("full_batch", &GradAccumBatchNorm::FullBatch)
    .Variant("accumulate_4", &GradAccumBatchNorm::Accumulate4)
    .Tolerance(1e-4, 1e-6);
