// cudnn_benchmark (A15, B): let cuDNN time its algorithms and keep the fastest.
//
// With setBenchmarkCuDNN(true), the first convolution of each new shape tries cuDNN's
// algorithms and caches the fastest; with static shapes every later call reuses it.
// Measured as the claim is (1.27x forward, 1.70x backward), in two cases: "forward"
// (an inference forward of the CNN) and "backward" (only the backward pass, replayed
// on a graph recorded once in SetUp with retain_graph; backward's convolutions pick
// their own algorithms when they run, under the variant's flag). The variant body sets
// the flag itself: SetUp cannot know which variant it prepares.
//
// Determinism: benchmark mode chooses by timing, so two runs can choose differently
// and give different bits. The autotuned variant therefore leaves benchmark mode off
// whenever deterministic mode is on (the DeterministicGuard turns both deterministic
// cuDNN and deterministic algorithms on): its reproducibility check runs it with the
// default algorithms. cudnn_benchmark_flags_test.cc asserts this, on CPU.
//
// Equivalence: outputs (forward) or grads (backward). Tolerance rtol 1e-2, atol 1e-3:
// cuDNN convolutions use TF32 by default (10-bit mantissa) and the two variants may
// run different algorithms, each rounding differently.
#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

using trickbench::workloads::CnnSize;
using trickbench::workloads::SmallCnn;

constexpr int64_t kBatch = 64;
constexpr int64_t kImage = 64;

bool DeterministicModeOn() {
  return at::globalContext().deterministicCuDNN() ||
         at::globalContext().deterministicAlgorithms();
}

class CudnnBenchmark : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Setting& s) override {
    backward_ = s.case_name == "backward";
    CnnSize size;
    size.channels = 64;
    size.blocks = 3;
    size.conv_bias = false;
    model_ = SmallCnn(size);
    model_->to(s.device);
    batch_ = trickbench::workloads::ImageBatch(kBatch, 3, kImage, kImage, 10, s.device);
    if (backward_) {
      loss_ = torch::nn::functional::cross_entropy(model_->forward(batch_.input), batch_.target);
    } else {
      model_->eval();
    }
  }

  void DefaultAlgorithms() { Run(/*autotune=*/false); }
  void Autotuned() { Run(/*autotune=*/true); }

  trickbench::Tensors Result() override {
    if (!backward_) return {out_};
    trickbench::Tensors grads;
    for (const auto& p : model_->parameters()) grads.push_back(p.grad().clone());
    return grads;
  }

  std::string Inactive(const std::string& variant) override {
    const bool on = at::globalContext().benchmarkCuDNN();
    if (variant == "autotuned" && !on) {
      return DeterministicModeOn() ? "benchmark mode kept off: deterministic mode is on"
                                   : "benchmark mode is off";
    }
    if (variant == "default_algorithms" && on) return "benchmark mode is on";
    return "";
  }

  int64_t ItemsPerRun() const override { return kBatch; }

 private:
  void Run(bool autotune) {
    at::globalContext().setBenchmarkCuDNN(autotune && !DeterministicModeOn());
    if (backward_) {
      model_->zero_grad(/*set_to_none=*/true);
      loss_.backward({}, /*retain_graph=*/true);
    } else {
      torch::NoGradGuard no_grad;
      out_ = model_->forward(batch_.input);
    }
  }

  bool backward_ = false;
  SmallCnn model_{nullptr};
  trickbench::workloads::Batch batch_;
  torch::Tensor loss_, out_;
};

}  // namespace

TRICKBENCH_TRICK(cudnn_benchmark, CudnnBenchmark)
    .Category("Model architecture and training")
    .Source("A15, B")
    .Claim("1.27x forward, 1.70x backward")
    .Expect(trickbench::claim::Faster(1.27).ForCase("forward"))
    .Expect(trickbench::claim::Faster(1.70).ForCase("backward"))
    .NeedsCuda("cuDNN's algorithm autotuning exists only on CUDA devices")
    .Cases({"forward", "backward"})
    .Variant("default_algorithms", &CudnnBenchmark::DefaultAlgorithms)
    .Variant("autotuned", &CudnnBenchmark::Autotuned)
    .Tolerance(1e-2, 1e-3);
