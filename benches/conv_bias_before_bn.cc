// conv_bias_before_bn (A17): no bias on a convolution that BatchNorm follows.
//
// BatchNorm subtracts the per-channel batch mean right after the convolution, so a
// per-channel conv bias is cancelled exactly in training mode: a parameter that costs
// an add forward, a reduction backward, optimizer state, and changes nothing. The
// shared SmallCnn with conv_bias true (baseline) and false, one SGD training step per
// run. SetUp builds both models, the second a copy of the first's shared weights, so
// the bias is the only difference.
//
// Equivalence (training mode): the logits of the last step and every shared parameter
// after the steps (the bias's own grad is zero up to rounding, so the weights follow
// the same path). Tolerance rtol 1e-4, atol 1e-5: adding then subtracting the bias
// rounds at a different magnitude (a few fp32 ulp per BatchNorm, 7 of them); a bias
// that did not cancel would move the logits by its own size (~0.1).
// Counters: parameters (total count) and conv_bias_parameters.
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

using trickbench::workloads::CnnSize;
using trickbench::workloads::SmallCnn;

constexpr int64_t kBatch = 16;
constexpr int64_t kImage = 16;
constexpr double kLearningRate = 0.05;

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
    CnnSize size;
    size.conv_bias = true;
    with_bias_ = Make(SmallCnn(size), s.device);
    // Nonzero biases (Conv2d's default init already gives them), so the check really
    // shows cancellation rather than zeros.
    size.conv_bias = false;
    without_bias_ = Make(SmallCnn(size), s.device);
    torch::NoGradGuard no_grad;
    const auto from = with_bias_.net->named_parameters();
    for (auto& p : without_bias_.net->named_parameters()) p.value().copy_(from[p.key()]);
    batch_ = trickbench::workloads::ImageBatch(kBatch, 3, kImage, kImage, 10, s.device);
  }

  void ConvBias() { Step(with_bias_); }
  void NoBias() { Step(without_bias_); }

  trickbench::Tensors Result() override {
    trickbench::Tensors out{logits_};
    // Shared parameters only, in the no-bias model's order (names match).
    const auto params = last_->net->named_parameters();
    for (const auto& p : without_bias_.net->named_parameters()) {
      out.push_back(params[p.key()].detach().clone());
    }
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const int64_t biases = ConvBiasCount(*last_->net);
    if (variant == "no_bias" && biases != 0) return "a conv still has a bias";
    if (variant == "conv_bias" && biases == 0) return "no conv has a bias";
    if (!last_->net->is_training()) return "model not in training mode (no batch statistics)";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const Model& m = variant == "no_bias" ? without_bias_ : with_bias_;
    int64_t total = 0;
    for (const auto& p : m.net->parameters()) total += p.numel();
    return {{"parameters", static_cast<double>(total)},
            {"conv_bias_parameters", static_cast<double>(ConvBiasCount(*m.net))}};
  }

  int64_t ItemsPerRun() const override { return kBatch; }

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

  void Step(Model& m) {
    last_ = &m;
    m.net->zero_grad(/*set_to_none=*/true);
    logits_ = m.net->forward(batch_.input);
    torch::nn::functional::cross_entropy(logits_, batch_.target).backward();
    m.optimizer->step();
    logits_ = logits_.detach();
  }

  Model with_bias_, without_bias_;
  Model* last_ = &with_bias_;
  trickbench::workloads::Batch batch_;
  torch::Tensor logits_;
};

}  // namespace

TRICKBENCH_TRICK(conv_bias_before_bn, ConvBiasBeforeBn)
    .Category("Model architecture and training")
    .Source("A17")
    .Claim("fewer params, less time and memory; same output")
    .Expect(trickbench::claim::Fewer("parameters"))
    .Expect(trickbench::claim::Faster())
    .Expect(trickbench::claim::LessMemory())
    .Trains()
    .Variant("conv_bias", &ConvBiasBeforeBn::ConvBias)
    .Variant("no_bias", &ConvBiasBeforeBn::NoBias)
    .Tolerance(1e-4, 1e-5);
