// max_batch_size (A10, B): one epoch of training steps at a batch of 8, 32, 128 or 512.
//
// A10: besides a multiple of 8, "maximise the batch size until it reaches the GPU's memory
// limit: an epoch then takes less time". B: "a larger batch usually shortens training
// for a fixed number of epochs, but brings hyperparameter and GPU memory questions".
// Each run is one epoch of 512 samples in steps of the variant's batch (512 / batch steps:
// forward, mean cross-entropy, backward, SGD step), so the run's time is the epoch's and
// items_per_second the samples per second; the peak memory is the batch's.
//
// Sizes. CPU: an MLP 256-256-256-10 on 512 samples (an epoch ~10-30 ms on one core).
// CUDA, case "bert_base_seq128": one BERT-base encoder layer (workloads/bert_layer.h,
// dropout 0) with a mean-pooled 2-class head, an epoch of 512 sequences of 128 tokens
// (65536 tokens, ~2.8 TFLOP of fp32 matmuls forward and backward): batch 8 is 1024
// tokens a step, launch- and latency-bound; 512 is 65536, the GPU's size.
// "As large as memory allows" is the GPU's bound; here the batches stop at the epoch.
//
// Equivalence: the learning rate is 0, so the weights stay where they are (the step's
// kernels still run: SGD adds -0 x grad) and every variant computes the same per-sample
// losses over the epoch, which Result() concatenates: proof that each variant ran the
// whole epoch, every sample once, at the same weights. With learning, trajectories
// depend on the batch (B's hyperparameter caveat): that is learning, not speed, and out
// of this trick. Tolerance rtol 1e-4, atol 1e-5: the GEMMs' blocking may depend on the
// batch (fp32 losses of ~0.7-2.3; bitwise equal on the CPU here, one process: batch 512
// 3.9x faster than 8, peak memory +97 %).
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <functional>

#include "harness/trick.h"
#include "workloads/bert_layer.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;
namespace F = torch::nn::functional;

constexpr int64_t kEpoch = 512;
constexpr char kBertCase[] = "bert_base_seq128";
constexpr int64_t kSequence = 128;
constexpr wl::MlpSize kMlp{.in = 256, .hidden = 256, .out = 10, .layers = 2};

// BERT-base's layer, its tokens mean-pooled into a 2-class head: per-sequence logits.
struct BertClassifierImpl : torch::nn::Module {
  BertClassifierImpl() {
    layer = register_module("layer", wl::BertLayer(wl::BertLayerSize{.dropout = 0}));
    head = register_module("head", torch::nn::Linear(wl::BertLayerSize{}.hidden, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) { return head(layer(x).mean(1)); }

  wl::BertLayer layer{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(BertClassifier);

int64_t BatchOf(const std::string& variant) {
  return std::stoll(variant.substr(variant.rfind('_') + 1));
}

class MaxBatchSize : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    if (s.params.String("case") == kBertCase) {
      auto m = BertClassifier();
      m->to(s.device);
      forward_ = [m](const torch::Tensor& x) mutable { return m->forward(x); };
      module_ = m.ptr();
      batch_ = {torch::randn({kEpoch, kSequence, wl::BertLayerSize{}.hidden}).to(s.device),
                torch::randint(0, 2, {kEpoch}, torch::kLong).to(s.device)};
    } else {
      auto m = wl::Mlp(kMlp, s.device);
      forward_ = [m](const torch::Tensor& x) mutable { return m->forward(x); };
      module_ = m.ptr();
      batch_ = wl::ClassificationBatch(kEpoch, kMlp.in, kMlp.out, s.device);
    }
    optimizer_ = std::make_unique<torch::optim::SGD>(module_->parameters(),
                                                     torch::optim::SGDOptions(/*lr=*/0));
  }

  void Batch8() { Epoch(8); }
  void Batch32() { Epoch(32); }
  void Batch128() { Epoch(128); }
  void Batch512() { Epoch(512); }

  trickbench::Tensors Result() override { return {losses_.cpu()}; }

  std::string Inactive(const std::string& variant) override {
    if (batch_size_ != BatchOf(variant)) {
      return "ran batches of " + std::to_string(batch_size_) + ", expected " +
             std::to_string(BatchOf(variant));
    }
    if (losses_.size(0) != kEpoch) return "the epoch did not cover its 512 samples";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"batch", static_cast<double>(batch_size_)},
            {"steps_per_epoch", static_cast<double>(kEpoch / batch_size_)}};
  }

  int64_t ItemsPerRun() const override { return kEpoch; }

 private:
  void Epoch(int64_t batch) {
    trickbench::Tensors losses;
    for (int64_t start = 0; start < kEpoch; start += batch) {
      module_->zero_grad(/*set_to_none=*/true);
      const auto per_sample = F::cross_entropy(
          forward_(batch_.input.narrow(0, start, batch)), batch_.target.narrow(0, start, batch),
          F::CrossEntropyFuncOptions().reduction(torch::kNone));
      per_sample.mean().backward();
      optimizer_->step();
      losses.push_back(per_sample.detach());
    }
    losses_ = torch::cat(losses);
    batch_size_ = batch;
  }

  std::function<torch::Tensor(const torch::Tensor&)> forward_;
  std::shared_ptr<torch::nn::Module> module_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
  wl::Batch batch_;
  torch::Tensor losses_;
  int64_t batch_size_ = 0;
};

// One epoch: 512 / batch training steps over 512 samples, 3x the forward's FLOP. Bytes:
// per step the weights read twice, grads written, SGD's pass over both (6 x the
// parameters, so small batches move more); each activation written once and read about
// five times. BERT-base's layer per token: Q, K, V, output and the two feed-forward
// GEMMs, the attention's two (sequence x hidden each); activations of 12 hidden-wide
// tensors, 2 intermediate-wide, scores and probabilities (heads x sequence).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const double steps = static_cast<double>(kEpoch / BatchOf(s.variant));
  double flop, params, activations;
  if (s.params.String("case") == kBertCase) {
    const wl::BertLayerSize b;
    const double tokens = static_cast<double>(kEpoch) * kSequence, h = b.hidden;
    const double per_token_macs = 4 * h * h + 2 * h * b.intermediate + 2 * kSequence * h;
    flop = 2 * per_token_macs * tokens;
    params = 4 * h * h + 2 * h * b.intermediate;
    activations = tokens * (12 * h + 2 * b.intermediate + 2 * b.heads * kSequence);
  } else {
    flop = wl::MlpForwardFlop(kMlp, kEpoch);
    params = static_cast<double>(wl::MlpParameters(kMlp));
    activations =
        static_cast<double>(kEpoch) * (kMlp.in + 2 * kMlp.layers * kMlp.hidden + kMlp.out);
  }
  return {.flop = 3 * flop,
          .bytes = 4 * (6 * params * steps + 6 * activations),
          .working_set = 4 * (3 * params + activations / steps)};
}

}  // namespace

TRICKBENCH_TRICK(max_batch_size, MaxBatchSize)
    .Category("Model architecture and training")
    .Source("A10, B")
    .Claim(
        "maximise the batch up to the GPU's memory: an epoch takes less time (no figure); "
        "a large batch costs memory")
    .Expect(trickbench::claim::Faster())
    .Expect(trickbench::claim::MoreMemory())
    // CUDA: about 2.9 TFLOP an epoch in every variant.
    .CudaCases({kBertCase})
    .Work(Work)
    .Variant("batch_8", &MaxBatchSize::Batch8)
    .Variant("batch_32", &MaxBatchSize::Batch32)
    .Variant("batch_128", &MaxBatchSize::Batch128)
    .Variant("batch_512", &MaxBatchSize::Batch512)
    .Tolerance(1e-4, 1e-5);
