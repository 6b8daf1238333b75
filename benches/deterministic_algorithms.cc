// deterministic_algorithms (B): what deterministic mode costs, and that it reproduces.
//
// One training step of a small conv net with a scatter-style aggregation (index_put_
// with accumulate, as in message passing or embedding sums), in two modes:
//   fast           deterministic algorithms off, cuDNN benchmark on (autotuned, may
//                  pick a nondeterministic algorithm), TF32 allowed;
//   deterministic  under trickbench::DeterministicGuard: deterministic algorithms
//                  (error on an op without a deterministic implementation),
//                  deterministic cuDNN, benchmark off, TF32 off.
// The ops are chosen to all have deterministic implementations on CUDA (cuDNN conv,
// index_put_ accumulate via sort, mean instead of adaptive pooling, whose CUDA
// backward has none), so the guarded step runs instead of throwing.
//
// CUBLAS_WORKSPACE_CONFIG is set before main (a static initialiser below; the trick
// library is alwayslink) so the guarded step's cuBLAS handle is deterministic; the
// fast step shares that handle, so the workspace setting's own cost is not in the
// comparison.
//
// Tolerance: on CPU both modes run the same kernels (the flags only change CUDA
// paths) and agree bitwise; on CUDA the fast mode's atomics and autotuned conv
// algorithms reorder float additions, so parameters after the steps differ in the last
// bits: rtol 1e-4 / atol 1e-6 covers that after a few SGD steps of this size.
#include "determinism/guard.h"
#include "harness/trick.h"

namespace {

// Before main, hence before any cuBLAS handle (see determinism/guard.h).
[[maybe_unused]] const bool kCublasConfigAtStartup = trickbench::SetCublasWorkspaceConfigIfUnset();

constexpr int64_t kBatch = 32;
constexpr int64_t kClasses = 10;
constexpr int64_t kSegments = 8;  // index_put_ accumulates the batch into this many rows

struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl()
      : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).padding(1)))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(16))),
        conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1).stride(2)))),
        head(register_module("head", torch::nn::Linear(32, kClasses))) {}

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& segment) {
    auto h = torch::relu(bn1(conv1(x)));
    h = torch::relu(conv2(h)).mean({2, 3});  // [batch, 32]
    // Sum each sample's features into its segment and give every sample its
    // segment's total back: a scatter-add whose CUDA kernel uses atomics.
    auto totals = torch::zeros({kSegments, h.size(1)}, h.options())
                      .index_put({segment}, h, /*accumulate=*/true);
    return head(h + totals.index({segment}));
  }

  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::Linear head;
};
TORCH_MODULE(ConvNet);

class DeterministicAlgorithms : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Setting& s) override {
    model_ = ConvNet();
    model_->to(s.device);
    optimizer_ = std::make_unique<torch::optim::SGD>(model_->parameters(),
                                                     torch::optim::SGDOptions(0.01).momentum(0.9));
    images_ = torch::randn({kBatch, 3, 32, 32}).to(s.device);
    labels_ = torch::randint(kClasses, {kBatch}, torch::kLong).to(s.device);
    segments_ = torch::randint(kSegments, {kBatch}, torch::kLong).to(s.device);
  }

  void Fast() {
    const trickbench::DeterminismFlags saved = trickbench::CurrentDeterminismFlags();
    trickbench::DeterminismFlags fast = saved;
    fast.deterministic_algorithms = false;
    fast.deterministic_warn_only = false;
    fast.cudnn_deterministic = false;
    fast.cudnn_benchmark = true;
    fast.tf32_cublas = true;
    fast.tf32_cudnn = true;
    trickbench::ApplyDeterminismFlags(fast);
    Step();
    trickbench::ApplyDeterminismFlags(saved);
  }

  void Deterministic() {
    trickbench::DeterministicGuard guard;
    Step();
  }

  trickbench::Tensors Result() override {
    trickbench::Tensors out;
    for (const auto& p : model_->parameters()) out.push_back(p.detach().clone());
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    if (variant == "deterministic" && !was_deterministic_) {
      return "deterministic algorithms were off during the guarded step";
    }
    if (variant == "fast" && was_deterministic_) return "deterministic algorithms were on";
    return "";
  }

  int64_t ItemsPerRun() const override { return kBatch; }

 private:
  void Step() {
    was_deterministic_ = at::globalContext().deterministicAlgorithms();
    optimizer_->zero_grad();
    auto logits = model_->forward(images_, segments_);
    torch::nn::functional::cross_entropy(logits, labels_).backward();
    optimizer_->step();
  }

  ConvNet model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  torch::Tensor images_, labels_, segments_;
  bool was_deterministic_ = false;
};

}  // namespace

TRICKBENCH_TRICK(deterministic_algorithms, DeterministicAlgorithms)
    .Category("Determinism")
    .Source("B")
    .Claim("reproducible runs")
    .Trains()
    .Variant("fast", &DeterministicAlgorithms::Fast)
    .Variant("deterministic", &DeterministicAlgorithms::Deterministic)
    .CheckSteps(3)
    .Tolerance(1e-4, 1e-6);
