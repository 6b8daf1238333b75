// free_intermediates (B): release the step's tensors as soon as they are used.
//
// A training loop that logs per step (the loss and a feature statistic) written two
// ways. The baseline keeps the step's logits, loss and per-layer features in members
// until the next step overwrites them, as Python keeps `out`/`loss` alive until
// reassigned: during the next step's forward and backward the previous step's tensors
// are still live next to the new ones. The optimized loop reads the numbers it logs
// and drops the tensors right after the step. Same arithmetic: the parameters and the
// logged values are bitwise equal.
//
// (On a GPU the tip adds emptying the caching allocator; that lowers reserved, not
// peak allocated memory, and this trick does not do it: empty_cache measures that.)
//
// Sizes (ShapeOf): on the CPU an MLP 512-512x4-10 on 1024 samples; on CUDA, case
// "wide_mlp", 1024-4096x4-10 on 4096 samples (about 1.3 TFLOP a step, 64 MiB a feature).
// No allocator-regime cases (harness/allocator_regime.h): the claim is peak live bytes,
// which the regime does not change (it changes what an allocation costs in time, shown
// but not graded here), so a second regime would double the run and grade the same
// numbers twice.
#include <torch/nn/functional.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

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
    return {{.in = 1024, .hidden = 4096, .out = 10, .layers = 4}, 4096};
  return {{.in = 512, .hidden = 512, .out = 10, .layers = 4}, 1024};
}

class FreeIntermediates : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const Shape shape = ShapeOf(s);
    model_ = wl::Mlp(shape.mlp, s.device);
    optimizer_ =
        std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
    batch_ = wl::ClassificationBatch(shape.batch, shape.mlp.in, shape.mlp.out, s.device);
  }

  void KeepUntilNextStep() { Step(/*release=*/false); }
  void ReleaseEarly() { Step(/*release=*/true); }

  trickbench::Tensors Result() override {
    trickbench::Tensors out = wl::Parameters(*model_);
    out.push_back(torch::tensor(logged_loss_, torch::kDouble));
    out.push_back(torch::tensor(logged_feature_norm_, torch::kDouble));
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const bool holds = loss_.defined() || logits_.defined() || !features_.empty();
    if (variant == "release_early" && holds)
      return "the step's tensors are still held after the step";
    if (variant == "keep_until_next_step" && !holds) return "the baseline released its tensors";
    return "";
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  void Step(bool release) {
    model_->zero_grad(/*set_to_none=*/true);
    // Assigning to the members replaces the previous step's tensors only now, after
    // this forward has allocated its own: the old ones were live until here.
    std::vector<torch::Tensor> features;
    torch::Tensor x = batch_.input;
    for (const auto& module : model_->children()) {
      x = module->as<torch::nn::Linear>() ? module->as<torch::nn::Linear>()->forward(x)
                                          : module->as<torch::nn::ReLU>()->forward(x);
      if (module->as<torch::nn::ReLU>()) features.push_back(x);
    }
    torch::Tensor loss = torch::nn::functional::cross_entropy(x, batch_.target);
    loss.backward();
    optimizer_->step();
    logged_loss_.push_back(loss.item<double>());
    logged_feature_norm_.push_back(features.back().norm().item<double>());
    if (release) {
      loss_ = logits_ = torch::Tensor();
      features_.clear();
    } else {
      loss_ = loss;
      logits_ = x;
      features_ = std::move(features);
    }
  }

  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  wl::Batch batch_;
  torch::Tensor loss_, logits_;
  std::vector<torch::Tensor> features_;
  std::vector<double> logged_loss_, logged_feature_norm_;
};

// One SGD step, the same in both variants (releasing a tensor moves no data): 3x the
// forward's FLOP; the weights read twice, grads written, SGD's pass over both (6 x the
// parameters); each activation written once and read about five times.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const double params = static_cast<double>(wl::MlpParameters(shape.mlp));
  const double activations = wl::MlpActivations(shape.mlp, shape.batch);
  return {.flop = 3 * wl::MlpForwardFlop(shape.mlp, shape.batch),
          .bytes = 4 * (6 * params + 6 * activations),
          .working_set = 4 * (3 * params + activations)};
}

}  // namespace

TRICKBENCH_TRICK(free_intermediates, FreeIntermediates)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("lower peak memory")
    .Expect(trickbench::claim::LessMemory())
    .Axis(trickbench::Axis::String("model", {""}).OnCuda({kCudaCase}))
    .Work(Work)
    .Trains()
    .Variant("keep_until_next_step", &FreeIntermediates::KeepUntilNextStep)
    .Variant("release_early", &FreeIntermediates::ReleaseEarly)
    // Three steps: the third runs with the second's tensors still held in the baseline.
    .CheckSteps(3)
    .Bitwise();
