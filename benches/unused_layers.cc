// unused_layers (B): layers that are constructed but never called still cost memory.
//
// A classifier (the shared MLP) trained with Adam, once as a module that also builds
// an auxiliary head it never calls in forward (a leftover of an experiment), once
// without it. The unused head's parameters are allocated and live through training:
// peak memory includes them (SetUp's survivors count in peak_bytes). Adam keeps no
// state for them here because they never get a grad, so the waste is the parameters
// alone; code that zeroes grads with zero_grad(false) or a DDP run with
// find_unused_parameters would pay more.
//
// The used layers are built first and the batch before both, so both variants draw
// the same initial weights and data: the trained used parameters are bitwise equal.
//
// Sizes (ShapeOf): on the CPU a body 256-512x2-10 on 512 samples and an unused head
// 512 -> 4096 -> 1000 (2.6 M parameters); on CUDA, case "wide_mlp", a body
// 1024-4096x2-1000 on 4096 samples (about 620 GFLOP a step) and an unused head
// 4096 -> 16384 -> 1000 (83 M parameters, 334 MB).
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/adam.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

constexpr char kCudaCase[] = "wide_mlp";

// The case's body, unused head and batch: the one place SetUp and Work() read them.
struct Shape {
  wl::MlpSize body, unused;
  int64_t batch;
};
Shape ShapeOf(const trickbench::Instance& s) {
  if (s.params.String("case") == kCudaCase) {
    return {{.in = 1024, .hidden = 4096, .out = 1000, .layers = 2},
            {.in = 4096, .hidden = 16384, .out = 1000, .layers = 1},
            4096};
  }
  return {{.in = 256, .hidden = 512, .out = 10, .layers = 2},
          {.in = 512, .hidden = 4096, .out = 1000, .layers = 1},
          512};
}

class ClassifierImpl : public torch::nn::Module {
 public:
  ClassifierImpl(const Shape& shape, bool with_unused_head, const torch::Device& device) {
    body_ = register_module("body", wl::Mlp(shape.body, device));
    if (with_unused_head) {
      // Parameters that forward never touches.
      aux_head_ = register_module("aux_head", wl::Mlp(shape.unused, device));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) { return body_->forward(x); }
  int64_t ParameterCount() const {
    int64_t n = 0;
    for (const auto& p : parameters()) n += p.numel();
    return n;
  }
  torch::nn::Sequential body_{nullptr}, aux_head_{nullptr};
};
TORCH_MODULE(Classifier);

class UnusedLayers : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const Shape shape = ShapeOf(s);
    batch_ = wl::ClassificationBatch(shape.batch, shape.body.in, shape.body.out, s.device);
    // The parameters live from here on, so they count in the runs' peak (SetUp's
    // survivors are part of peak_bytes): that is the cost being measured.
    model_ = Classifier(shape, /*with_unused_head=*/s.variant == "with_unused", s.device);
    optimizer_ =
        std::make_unique<torch::optim::Adam>(model_->parameters(), torch::optim::AdamOptions(1e-3));
  }

  void WithUnused() { Step(); }
  void WithoutUnused() { Step(); }

  trickbench::Tensors Result() override { return wl::Parameters(*model_->body_); }

  std::string Inactive(const std::string& variant) override {
    const bool has_aux = !model_->aux_head_.is_empty();
    if (variant == "with_unused" && !has_aux) return "the model has no unused layers";
    if (variant == "without_unused" && has_aux) return "the model still builds the unused head";
    if (has_aux) {
      for (const auto& p : model_->aux_head_->parameters()) {
        if (p.grad().defined()) return "the 'unused' head got a gradient: it is used";
      }
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"parameters", static_cast<double>(model_->ParameterCount())},
            {"used_parameters", static_cast<double>(UsedCount())}};
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  void Step() {
    optimizer_->zero_grad();
    wl::TrainStep(model_, *optimizer_, batch_);
  }
  int64_t UsedCount() const {
    int64_t n = 0;
    for (const auto& p : model_->body_->parameters()) n += p.numel();
    return n;
  }

  wl::Batch batch_;
  Classifier model_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
};

// One Adam step of the body, the same in both variants (the unused head is neither run
// nor stepped: it has no grad): 3x the forward's FLOP; the weights read twice, grads
// written, Adam reading parameters, grads and both moments and writing three (10 x the
// parameters); each activation written once and read about five times. The unused
// head's parameters are touched by nothing.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const double params = static_cast<double>(wl::MlpParameters(shape.body));
  const double activations = wl::MlpActivations(shape.body, shape.batch);
  return {.flop = 3 * wl::MlpForwardFlop(shape.body, shape.batch),
          .bytes = 4 * (10 * params + 6 * activations),
          .working_set = 4 * (4 * params + activations)};
}

}  // namespace

TRICKBENCH_TRICK(unused_layers, UnusedLayers)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("unused layers still cost memory (params, optimizer state)")
    .Expect(trickbench::claim::LessMemory())
    .CudaCases({kCudaCase})
    .Work(Work)
    .Trains()
    .MutationUndetected(
        "without_unused",
        "the trick is the model SetUp builds without the unused head; both bodies are the same "
        "training step, so the baseline's body on this instance still applies it")
    .Variant("with_unused", &UnusedLayers::WithUnused)
    .Variant("without_unused", &UnusedLayers::WithoutUnused)
    .Bitwise();
