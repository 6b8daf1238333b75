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
// widths it is not: every Linear has its input and output alive at once either way. Same
// arithmetic, so the parameters (training) and the outputs (inference) are bitwise equal.
// Sizes (ShapeOf): the CPU's below; on CUDA 32768 rows, training 1024 wide and inference
// BERT-base's feed-forward shape (768 -> 3072 -> 768), hundreds of MB per activation.
// No allocator-regime cases (harness/allocator_regime.h), though the saving is an
// allocation: the claim is peak live bytes, which the regime does not change (it changes
// what an allocation costs in time, which is shown here but not graded), so a second
// regime would double the trick's run time and grade the same numbers twice.
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

// The case's MLP and batch: the one place SetUp and Work() read them.
struct Shape {
  wl::MlpSize mlp;
  int64_t batch;
};
Shape ShapeOf(const trickbench::Instance& s) {
  const bool inference = s.params.String("mode") == "inference";
  if (s.device.is_cuda()) {
    if (inference) return {{.in = 768, .hidden = 3072, .out = 768, .layers = 1}, 32768};
    return {{.in = 1024, .hidden = 1024, .out = 10, .layers = 4}, 32768};
  }
  // Training: wide activations (batch 1024 x 512) against small weights, so the saved
  // activations are a large share of the step's memory. Inference: a transformer's
  // feed-forward shape, 512 -> 4096 -> 512, where the wide ReLU is the peak: out of
  // place its output is a second 16 MiB buffer beside its input.
  if (inference) return {{.in = 512, .hidden = 4096, .out = 512, .layers = 1}, 1024};
  return {{.in = 512, .hidden = 512, .out = 10, .layers = 4}, 1024};
}

class InplaceOps : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    inference_ = s.params.String("mode") == "inference";
    const Shape shape = ShapeOf(s);
    model_ = wl::Mlp(shape.mlp, s.device);
    optimizer_ =
        std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
    batch_ = wl::ClassificationBatch(shape.batch, shape.mlp.in, 10, s.device);
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

// Training: one SGD step, 3x the forward's FLOP; the weights read twice, grads written,
// SGD's pass over both (6 x the parameters); each activation written once and read about
// five times. Inference: one forward, each activation written once and read once. In
// place the ReLU reads and writes as many bytes, but into the buffer it reads: fewer
// distinct bytes, a smaller working set.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const bool inference = s.params.String("mode") == "inference";
  const double weights = static_cast<double>(wl::MlpParameters(shape.mlp));
  const double rows = static_cast<double>(shape.batch), ends = shape.mlp.in + shape.mlp.out;
  const double hidden = static_cast<double>(shape.mlp.layers) * shape.mlp.hidden;
  // Linear and ReLU outputs; in place the ReLU's is its input's buffer.
  const double activations = rows * (ends + 2 * hidden);
  const double distinct = rows * (ends + (s.variant == "in_place" ? 1 : 2) * hidden);
  const double forward = wl::MlpForwardFlop(shape.mlp, shape.batch);
  if (inference) {
    return {.flop = forward,
            .bytes = 4 * (weights + 2 * activations),
            .working_set = 4 * (weights + distinct)};
  }
  return {.flop = 3 * forward,
          .bytes = 4 * (6 * weights + 6 * activations),
          .working_set = 4 * (3 * weights + 2 * distinct)};
}

}  // namespace

TRICKBENCH_TRICK(inplace_ops, InplaceOps)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("saves memory")
    .Expect(trickbench::claim::LessMemory())
    // CUDA: training about 0.8 TFLOP a step, inference 0.3 TFLOP; working sets of 0.6-1.4 GB.
    .Axis(trickbench::Axis::String("mode", {"training", "inference"}))
    .Work(Work)
    .TrafficBound()
    .Trains({"training"})
    .Variant("out_of_place", &InplaceOps::OutOfPlace)
    .Variant("in_place", &InplaceOps::InPlace)
    .Bitwise();
