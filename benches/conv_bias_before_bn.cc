// conv_bias_before_bn (A17): no bias on a convolution that BatchNorm follows.
//
// BatchNorm subtracts the per-channel batch mean right after the convolution, so a
// per-channel conv bias is cancelled exactly in training mode: a parameter that costs
// an add forward, a reduction backward, optimizer state, and changes nothing. The
// shared SmallCnn with conv_bias true (baseline) and false, one SGD training step per
// run: on the CPU 32 channels on 16x16 RGB, batch 16; on CUDA at ResNet-50 stage 2's 3x3
// shape (ShapeOf), 207 GFLOP a step (~260 us at an H200's bf16 peak). SetUp builds only
// its variant's model (the other would count in its peak memory):
// every instance first draws the with-bias model from the seeded RNG, and the no-bias
// instance copies that model's shared weights and drops it, so the bias is the only
// difference.
//
// Equivalence (training mode): the logits of the last step and every shared parameter
// after the steps (the bias's own grad is zero up to rounding, so the weights follow
// the same path). Tolerance rtol 1e-4, atol 1e-5: adding then subtracting the bias
// rounds at a different magnitude (a few fp32 ulp per BatchNorm, 7 of them); a bias
// that did not cancel would move the logits by its own size (~0.1).
// Counters (evidence: the model decides them): parameters and conv_bias_parameters.
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

using trickbench::workloads::CnnSize;
using trickbench::workloads::SmallCnn;

constexpr double kLearningRate = 0.05;

struct Shape {
  int64_t batch, image;
  CnnSize size;  // conv_bias as the baseline has it (true)
};

// The CPU's small net on 16x16 images; on CUDA ResNet-50 stage 2's 3x3 shape (64
// channels at 56x56, the input standing for the stage's activations), batch 64: the one
// place SetUp and Work size the case from.
Shape ShapeOf(const trickbench::Instance& s) {
  if (!s.device.is_cuda()) return {.batch = 16, .image = 16, .size = CnnSize{}};
  return {.batch = 64, .image = 56, .size = CnnSize{.in_channels = 64, .channels = 64}};
}

struct Model {
  SmallCnn net{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer;
};

bool IsConvBias(const std::string& name) {
  return name.find("conv") != std::string::npos && name.size() >= 5 &&
         name.compare(name.size() - 5, 5, ".bias") == 0;
}

class ConvBiasBeforeBn : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const Shape shape = ShapeOf(s);
    CnnSize size = shape.size;
    size.conv_bias = true;
    // Drawn in every instance, so both variants start from the same seeded weights.
    // Nonzero biases (Conv2d's default init gives them), so the check really shows
    // cancellation rather than zeros.
    SmallCnn with_bias(size);
    // Drawn before the no-bias model's own (overwritten) init, so both instances train on
    // the same batch.
    batch_ = trickbench::workloads::ImageBatch(shape.batch, size.in_channels, shape.image,
                                               shape.image, 10, s.device);
    if (s.variant == "no_bias") {
      size.conv_bias = false;
      SmallCnn without_bias(size);
      torch::NoGradGuard no_grad;
      const auto from = with_bias->named_parameters();
      for (auto& p : without_bias->named_parameters()) p.value().copy_(from[p.key()]);
      model_ = Make(without_bias, s.device);
    } else {
      model_ = Make(with_bias, s.device);
    }
  }

  void ConvBias() { Step(); }
  void NoBias() { Step(); }

  trickbench::Tensors Result() override {
    trickbench::Tensors out{logits_};
    // Shared parameters only (every one but the conv biases), in registration order:
    // the same names in the same order in both models.
    for (const auto& p : model_.net->named_parameters()) {
      if (!IsConvBias(p.key())) out.push_back(p.value().detach().clone());
    }
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const int64_t biases = ConvBiasCount(*model_.net);
    if (variant == "no_bias" && biases != 0) return "a conv still has a bias";
    if (variant == "conv_bias" && biases == 0) return "no conv has a bias";
    if (!model_.net->is_training()) return "model not in training mode (no batch statistics)";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    int64_t total = 0;
    for (const auto& p : model_.net->parameters()) total += p.numel();
    return {{"parameters", static_cast<double>(total)},
            {"conv_bias_parameters", static_cast<double>(ConvBiasCount(*model_.net))}};
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  static Model Make(SmallCnn net, const torch::Device& device) {
    net->to(device);
    net->train();
    Model m;
    m.net = net;
    m.optimizer = std::make_unique<torch::optim::SGD>(net->parameters(),
                                                      torch::optim::SGDOptions(kLearningRate));
    return m;
  }

  static int64_t ConvBiasCount(const torch::nn::Module& net) {
    int64_t n = 0;
    for (const auto& p : net.named_parameters()) {
      if (IsConvBias(p.key())) n += p.value().numel();
    }
    return n;
  }

  void Step() {
    Model& m = model_;
    m.net->zero_grad(/*set_to_none=*/true);
    logits_ = m.net->forward(batch_.input);
    torch::nn::functional::cross_entropy(logits_, batch_.target).backward();
    m.optimizer->step();
    logits_ = logits_.detach();
  }

  Model model_;
  trickbench::workloads::Batch batch_;
  torch::Tensor logits_;
};

// One SGD step: the 3x3 convolutions forward and backward (the stem's input needs no
// gradient: its backward is the weight gradient alone); the head is negligible. Bytes,
// fp32: each conv-BN-ReLU layer's activation about six times forward (the conv's read
// and write, BatchNorm's and ReLU's) and twelve backward; with conv biases three more
// per conv (the bias add's read and write, the bias gradient's reduction).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const CnnSize& size = shape.size;
  const double convs = static_cast<double>(1 + 2 * size.blocks);
  const double pixels = static_cast<double>(shape.batch * shape.image * shape.image);
  const double conv_flop = 2 * pixels * static_cast<double>(size.channels * size.channels * 9);
  const double stem_flop =
      conv_flop / static_cast<double>(size.channels) * static_cast<double>(size.in_channels);
  const double activation = 4 * pixels * static_cast<double>(size.channels);
  const double input = 4 * pixels * static_cast<double>(size.in_channels);
  const double passes = 18 + (s.variant == "conv_bias" ? 3 : 0);
  return {.flop = 2 * stem_flop + 3 * (convs - 1) * conv_flop,
          .bytes = 2 * input + passes * convs * activation,
          .working_set = input + 3 * convs * activation};
}

}  // namespace

TRICKBENCH_TRICK(conv_bias_before_bn, ConvBiasBeforeBn)
    .Category("Model architecture and training")
    .Source("A17")
    .Claim("fewer params, less time and memory; same output")
    .Expect(trickbench::claim::Faster())
    .Expect(trickbench::claim::LessMemory())
    .Work(Work)
    .Trains()
    .MutationUndetected("no_bias",
                        "the trick is the model SetUp builds without conv biases; both bodies "
                        "are the same training step, so the baseline's body on this instance "
                        "still applies it")
    .Variant("conv_bias", &ConvBiasBeforeBn::ConvBias)
    .Variant("no_bias", &ConvBiasBeforeBn::NoBias)
    .Tolerance(1e-4, 1e-5);
