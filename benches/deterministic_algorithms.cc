// deterministic_algorithms (B): what deterministic mode costs, and that it reproduces.
//
// One training step of a small conv net with a scatter-style aggregation (scatter_add,
// as in message passing or embedding sums) on 32x32 images, batch 32 on the CPU and 1024
// on CUDA (BatchOf: ~1.6 GB of traffic a step, ~380 us at an H200's bandwidth), in two
// modes that differ only in the two determinism switches:
//   fast           at::globalContext().setDeterministicAlgorithms(false) and
//                  cudnn.deterministic off;
//   deterministic  setDeterministicAlgorithms(true) (error on an op without a
//                  deterministic implementation) and cudnn.deterministic on.
// Everything else is held at one fixed value in both, the DeterministicGuard's: TF32
// off for cuBLAS and cuDNN, cuDNN benchmark off (autotuning picks by timing, so it
// could not stay on in the reproducible mode); the workspace config and the
// uninitialised-memory fill stay as the process has them. A fast mode with TF32 and
// autotuning on would time those two tricks (cudnn_benchmark, TF32 matmuls) along
// with determinism's cost. Each body sets its flags and restores the ones it found.
//
// The ops are chosen to all have deterministic implementations on CUDA (cuDNN conv,
// scatter_add via a sorted index_put_, index's backward likewise, mean instead of
// adaptive pooling, whose CUDA backward has none), so the deterministic step runs
// instead of throwing; in the fast mode scatter_add's CUDA kernel adds with atomics.
//
// Reproducibility, measured: Counters() restores the state the checks' runs left
// (parameters, BN statistics, a fresh optimizer) kRepeats times, runs the variant's step
// from it each time, and counts the repeats whose parameters are bitwise equal to the
// first repeat's ("bitwise_repeats", 1 to kRepeats; a repeat that left the parameters
// where they started, or ran under the wrong flags, is not counted). Graded on CUDA
// only: on a CPU both modes run the same deterministic kernels and both count
// kRepeats; on a GPU the fast mode's atomic order varies with scheduling, so how often
// it repeats itself is a property of the device and the run, not a fixed number.
//
// CUBLAS_WORKSPACE_CONFIG is set before main (a static initialiser below; the trick
// library is alwayslink) so the deterministic step's cuBLAS handle is deterministic; the
// fast step shares that handle, so the workspace setting's own cost is not in the
// comparison.
//
// Tolerance: on CPU both modes run the same kernels (the flags only change CUDA
// paths) and agree bitwise; on CUDA the fast mode's atomics and nondeterministic
// conv algorithms reorder float additions, so parameters after the steps differ in the last
// bits: rtol 1e-4 / atol 1e-6 covers that after a few SGD steps of this size.
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include "determinism/guard.h"
#include "harness/trick.h"

namespace {

// Before main, hence before any cuBLAS handle (see determinism/guard.h).
[[maybe_unused]] const bool kCublasConfigAtStartup = trickbench::SetCublasWorkspaceConfigIfUnset();

constexpr int64_t kClasses = 10;
constexpr int64_t kImage = 32;
constexpr int64_t kSegments = 8;  // scatter_add sums the batch into this many rows
constexpr int kRepeats = 8;       // steps from one saved state, for bitwise_repeats

struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl()
      : conv1(register_module("conv1",
                              torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).padding(1)))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(16))),
        conv2(register_module(
            "conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1).stride(2)))),
        head(register_module("head", torch::nn::Linear(32, kClasses))) {}

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& segment) {
    auto h = torch::relu(bn1(conv1(x)));
    h = torch::relu(conv2(h)).mean({2, 3});  // [batch, 32]
    // Sum each sample's features into its segment and give every sample its
    // segment's total back: a scatter-add whose CUDA kernel uses atomics.
    auto totals = torch::zeros({kSegments, h.size(1)}, h.options())
                      .scatter_add(0, segment.unsqueeze(1).expand_as(h), h);
    return head(h + totals.index({segment}));
  }

  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::Linear head;
};
TORCH_MODULE(ConvNet);

// Images a step: 32 on the CPU; 1024 on CUDA, where 32 would be a few microseconds of
// work. The one place SetUp and Work size from.
int64_t BatchOf(const trickbench::Instance& s) { return s.device.is_cuda() ? 1024 : 32; }

// One SGD step on [batch, 3, 32, 32]. FLOP: the two convolutions forward, twice that
// backward (conv1's input needs no gradient: its weight gradient alone). Bytes, fp32:
// forward, the input read, conv1's output six times (written, BatchNorm's and ReLU's read
// and write, read by conv2), conv2's four (written, ReLU's read and write, the mean's
// read); the backward twice the forward. The scatter-add and the head are negligible.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const double batch = static_cast<double>(BatchOf(s));
  const double c1 = 16.0 * kImage * kImage, c2 = 32.0 * (kImage / 2) * (kImage / 2);
  const double input = 3.0 * kImage * kImage;
  const double conv1_flop = 2 * c1 * 3 * 9, conv2_flop = 2 * c2 * 16 * 9;
  return {.flop = batch * (2 * conv1_flop + 3 * conv2_flop),
          .bytes = 3 * 4 * batch * (input + 6 * c1 + 4 * c2),
          .working_set = 4 * batch * (input + 3 * c1 + 2 * c2)};
}

// The variant's flags for one body: the entry flags with TF32 and cuDNN benchmark held
// off, the determinism switches set as asked; the entry flags restored after.
class ModeScope {
 public:
  explicit ModeScope(bool deterministic) : saved_(trickbench::CurrentDeterminismFlags()) {
    trickbench::DeterminismFlags f = saved_;
    f.tf32_cublas = false;
    f.tf32_cudnn = false;
    f.cudnn_benchmark = false;
    f.deterministic_algorithms = deterministic;
    f.deterministic_warn_only = false;
    f.cudnn_deterministic = deterministic;
    trickbench::ApplyDeterminismFlags(f);
  }
  ~ModeScope() { trickbench::ApplyDeterminismFlags(saved_); }
  ModeScope(const ModeScope&) = delete;
  ModeScope& operator=(const ModeScope&) = delete;

 private:
  const trickbench::DeterminismFlags saved_;
};

class DeterministicAlgorithms : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    model_ = ConvNet();
    model_->to(s.device);
    optimizer_ = std::make_unique<torch::optim::SGD>(model_->parameters(),
                                                     torch::optim::SGDOptions(0.01).momentum(0.9));
    const int64_t batch = BatchOf(s);
    images_ = torch::randn({batch, 3, kImage, kImage}).to(s.device);
    labels_ = torch::randint(kClasses, {batch}, torch::kLong).to(s.device);
    segments_ = torch::randint(kSegments, {batch}, torch::kLong).to(s.device);
  }

  void Fast() {
    ModeScope mode(/*deterministic=*/false);
    Step();
  }

  void Deterministic() {
    ModeScope mode(/*deterministic=*/true);
    Step();
  }

  trickbench::Tensors Result() override {
    trickbench::Tensors out;
    for (const auto& p : model_->parameters()) out.push_back(p.detach().clone());
    return out;
  }

  // From the flags read inside the step, not from what SetUp left.
  std::string Inactive(const std::string& variant) override {
    const trickbench::DeterminismFlags& f = during_step_;
    if (f.tf32_cublas || f.tf32_cudnn || f.cudnn_benchmark) {
      return "TF32 or cuDNN benchmark was on during the step: the variants differ in more "
             "than the determinism switches";
    }
    const bool want = variant == "deterministic";
    if (f.deterministic_algorithms != want || f.cudnn_deterministic != want) {
      return std::string("deterministic algorithms / cuDNN deterministic were ") +
             (f.deterministic_algorithms ? "on" : "off") + " / " +
             (f.cudnn_deterministic ? "on" : "off") + " during the step";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"bitwise_repeats", BitwiseRepeats(variant)}};
  }

  int64_t ItemsPerRun() const override { return images_.size(0); }

 private:
  void Step() {
    during_step_ = trickbench::CurrentDeterminismFlags();
    optimizer_->zero_grad();
    auto logits = model_->forward(images_, segments_);
    torch::nn::functional::cross_entropy(logits, labels_).backward();
    optimizer_->step();
  }

  // See the top comment. The model's state is put back afterwards.
  double BitwiseRepeats(const std::string& variant) {
    torch::NoGradGuard no_grad;
    trickbench::Tensors saved;
    for (const auto& t : model_->parameters()) saved.push_back(t.detach().clone());
    for (const auto& t : model_->buffers()) saved.push_back(t.detach().clone());
    auto restore = [&] {
      size_t i = 0;
      for (const auto& t : model_->parameters()) t.detach().copy_(saved[i++]);
      for (const auto& t : model_->buffers()) t.detach().copy_(saved[i++]);
    };
    auto kept = std::move(optimizer_);
    trickbench::Tensors first;
    int equal = 0;
    for (int r = 0; r < kRepeats; ++r) {
      restore();
      optimizer_ = std::make_unique<torch::optim::SGD>(
          model_->parameters(), static_cast<const torch::optim::SGDOptions&>(kept->defaults()));
      {
        torch::AutoGradMode grad(true);
        ModeScope mode(/*deterministic=*/variant == "deterministic");
        Step();
      }
      trickbench::Tensors now = Result();
      bool moved = false, same = !first.empty();
      for (size_t i = 0; i < now.size(); ++i) {
        moved = moved || !torch::equal(now[i], saved[i]);
        if (same) same = torch::equal(now[i], first[i]);
      }
      if (!moved || !Inactive(variant).empty()) continue;
      if (first.empty()) first = now, same = true;
      equal += same ? 1 : 0;
    }
    restore();
    optimizer_ = std::move(kept);
    return equal;
  }

  ConvNet model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  torch::Tensor images_, labels_, segments_;
  trickbench::DeterminismFlags during_step_;
};

}  // namespace

TRICKBENCH_TRICK(deterministic_algorithms, DeterministicAlgorithms)
    .Category("Determinism")
    .Source("B")
    .Claim("reproducible runs")
    .Expect(trickbench::claim::More("bitwise_repeats",
                                    "steps repeated from one saved state whose parameters are "
                                    "bitwise equal to the first repeat's")
                .ForVariant("deterministic")
                .OnCuda("the fast mode's atomics and cuDNN algorithms reorder additions on a GPU; "
                        "on a CPU both modes run the same deterministic kernels"))
    .Work(Work)
    .Trains()
    .Variant("fast", &DeterministicAlgorithms::Fast)
    .Variant("deterministic", &DeterministicAlgorithms::Deterministic)
    .CheckSteps(3)
    .Tolerance(1e-4, 1e-6);
