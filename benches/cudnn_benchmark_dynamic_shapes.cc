// cudnn_benchmark_dynamic_shapes (A15, B): cuDNN's autotuner when every batch has a new
// input shape.
//
// A15 and B: benchmark mode "is recommended when the input size does not change often;
// if it changes often, the autotuner has to benchmark too often, which can hurt
// performance". cudnn_benchmark measures the static case; this file the other: every
// call of a variant's body convolves a batch of a shape that variant has not seen in
// this process, so benchmark mode times cuDNN's algorithms (cudnnFind) on every call,
// while the default variant only asks the heuristics for a plan per new shape.
//
// Work: two 3x3 convolutions of ResNet-50's stage 2 (64 -> 64 channels, each followed by
// BatchNorm in eval mode and ReLU), inference, on batches of N = 240..255 images on CUDA
// (56..71 on the CPU, which only compiles it) of about 64 x 64 pixels (ResNet-50's stage
// 2 is 64 x 56 x 56): H = 40..100, W = 4096 / H + d, d = -3..3, so H x W stays within
// 3700..4371 and the work per call (~75 GFLOP per convolution at N = 247; at least 131
// GFLOP a call, ~165 us at an H200's bf16 peak) does not drift along the sequence, which
// the faster variant walks further. Shape number i: N = MinBatch + i % 16, then H, then d:
// 6832 shapes before one would repeat, far more than a run calls (the counter
// distinct_shapes says how many it did); a body that runs out throws rather than time
// a cached shape.
//
// Fairness, as in cudnn_benchmark (whose comment has the reasoning): cuDNN's plan cache
// is keyed by shape and flags, not by benchmark mode, so each variant's convolutions get
// keys of their own at the same work: the default variant pads rows explicitly ([H+2, W]
// input, padding (0, 1)), the autotuned one columns. The shape counters are per variant
// and per process, so a shape the checks used is not reused by the timed runs.
//
// Equivalence: each call's input is the top-left corner of one seeded tensor, and the
// outputs' top-left [MinBatch, 64, 33, 33] (what every shape has, less a margin beyond
// the two rows and columns two 3x3 convolutions reach) depend on that corner only: the
// same for every shape. Tolerance rtol 1e-2, atol 1e-3: TF32 convolutions, different
// algorithms (cudnn_benchmark's). Determinism: under deterministic mode the autotuned
// variant keeps benchmark mode off (cudnn_benchmark's rule) and the shape counter is the
// instance's own, so two seeded runs see the same shapes and give the same bits.
#include <torch/nn/functional.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "benches/cudnn_benchmark_mode.h"
#include "harness/trick.h"

namespace {

namespace F = torch::nn::functional;

constexpr int64_t kChannels = 64, kBatches = 16;
constexpr int64_t kMinHeight = 40, kHeights = 61, kArea = 64 * 64, kWidthSteps = 7;
constexpr int64_t kShapes = kBatches * kHeights * kWidthSteps;
constexpr int64_t kMaxHeight = kMinHeight + kHeights - 1;
constexpr int64_t kMinWidth = kArea / kMaxHeight - kWidthSteps / 2;
constexpr int64_t kMaxWidth = kArea / kMinHeight + kWidthSteps / 2;
// What every shape has, less a margin beyond the two pixels two 3x3 convolutions reach.
constexpr int64_t kCrop = std::min(kMinHeight, kMinWidth) - 4;

struct Shape {
  int64_t batch, height, width;
};

// The smallest batch of the sequence: 56 on the CPU (ResNet-50's batch 64, give or
// take), 240 on CUDA (its training batch 256, give or take), where 56 would be under
// 100 us of work on an H200. The one place SetUp and Work size from.
int64_t MinBatch(const trickbench::Instance& s) { return s.device.is_cuda() ? 240 : 56; }

Shape ShapeNumber(int64_t i, int64_t min_batch) {
  const int64_t height = kMinHeight + i / kBatches % kHeights;
  const int64_t d = i / (kBatches * kHeights) % kWidthSteps - kWidthSteps / 2;
  return {min_batch + i % kBatches, height, kArea / height + d};
}

// One call at its least: the smallest batch at the smallest H x W of the sequence, two
// 3x3 convolutions (2 FLOP a multiply-add); bytes, fp32: the input read and padded
// (read, written) before each convolution, its output, BatchNorm's and ReLU's read and
// write. What the autotuned variant's search runs besides is not counted: the floor
// holds the convolutions themselves.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  int64_t area = kArea * kArea;
  for (int64_t i = 0; i < kHeights * kWidthSteps; ++i) {
    const Shape shape = ShapeNumber(i * kBatches, 0);
    area = std::min(area, shape.height * shape.width);
  }
  const double pixels = static_cast<double>(MinBatch(s) * area);
  const double activation = 4 * pixels * kChannels;
  return {.flop = 2 * 2 * pixels * kChannels * kChannels * 9,
          .bytes = 2 * 8 * activation,
          .working_set = 3 * activation};
}

// Shapes used so far in this process, per padding orientation (per variant).
int64_t& ProcessShapeCounter(bool pad_rows) {
  static int64_t rows = 0, columns = 0;
  return pad_rows ? rows : columns;
}

class CudnnBenchmarkDynamicShapes : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    pad_rows_ = s.variant != "autotuned";
    min_batch_ = MinBatch(s);
    for (auto* c : {&conv1_, &conv2_}) {
      *c = torch::nn::Conv2d(torch::nn::Conv2dOptions(kChannels, kChannels, 3).bias(false));
      (*c)->to(s.device);
    }
    for (auto* b : {&bn1_, &bn2_}) {
      *b = torch::nn::BatchNorm2d(kChannels);
      (*b)->to(s.device);
      (*b)->eval();
    }
    input_ =
        torch::randn({min_batch_ + kBatches - 1, kChannels, kMaxHeight, kMaxWidth}).to(s.device);
  }

  void DefaultAlgorithms() { Run(/*autotune=*/false); }
  void Autotuned() { Run(/*autotune=*/true); }

  trickbench::Tensors Result() override {
    return {out_.narrow(0, 0, min_batch_).narrow(2, 0, kCrop).narrow(3, 0, kCrop).cpu()};
  }

  std::string Inactive(const std::string& variant) override { return mode_.Inactive(variant); }

  std::map<std::string, double> Counters(const std::string& variant) override {
    // Wall time of the instance's first and last body: each pays a new shape's search.
    return {{"first_run_ms", std::max(first_run_ms_, 1e-6)},
            {"later_run_ms", std::max(last_run_ms_, 1e-6)},
            {"distinct_shapes", static_cast<double>(ProcessShapeCounter(pad_rows_))}};
  }

 private:
  torch::Tensor Conv(const torch::nn::Conv2d& c, const torch::Tensor& x) const {
    if (pad_rows_)
      return F::conv2d(F::pad(x, F::PadFuncOptions({0, 0, 1, 1})), c->weight,
                       F::Conv2dFuncOptions().padding(torch::ExpandingArray<2>({0, 1})));
    return F::conv2d(F::pad(x, F::PadFuncOptions({1, 1, 0, 0})), c->weight,
                     F::Conv2dFuncOptions().padding(torch::ExpandingArray<2>({1, 0})));
  }

  void Run(bool autotune) {
    const auto start = std::chrono::steady_clock::now();
    mode_.Apply(autotune);
    // Under deterministic mode the instance's own count: reproducible shapes.
    int64_t& counter = mode_.deterministic() ? own_counter_ : ProcessShapeCounter(pad_rows_);
    if (counter >= kShapes) {
      throw std::runtime_error("cudnn_benchmark_dynamic_shapes: all " + std::to_string(kShapes) +
                               " shapes used; a later one would hit cuDNN's cache");
    }
    const Shape s = ShapeNumber(counter++, min_batch_);
    {
      torch::NoGradGuard no_grad;
      const torch::Tensor x =
          input_.narrow(0, 0, s.batch).narrow(2, 0, s.height).narrow(3, 0, s.width);
      out_ = torch::relu(bn2_(Conv(conv2_, torch::relu(bn1_(Conv(conv1_, x))))));
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    (runs_++ == 0 ? first_run_ms_ : last_run_ms_) = ms;
  }

  bool pad_rows_ = true;
  int64_t min_batch_ = 0;
  trickbench::CudnnBenchmarkMode mode_;  // the flag as the last body set it
  int64_t runs_ = 0, own_counter_ = 0;
  double first_run_ms_ = 0, last_run_ms_ = 0;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::Tensor input_, out_;
};

}  // namespace

TRICKBENCH_TRICK(cudnn_benchmark_dynamic_shapes, CudnnBenchmarkDynamicShapes)
    .Category("Model architecture and training")
    .Source("A15, B")
    .Claim(
        "with input sizes that change often, benchmark mode re-tunes too often and can "
        "hurt performance (no figure)")
    .Expect(trickbench::claim::Slower())
    .NeedsCuda("cuDNN's algorithm autotuning exists only on CUDA devices")
    .Work(Work)
    .Variant("default_algorithms", &CudnnBenchmarkDynamicShapes::DefaultAlgorithms)
    .Variant("autotuned", &CudnnBenchmarkDynamicShapes::Autotuned)
    .Tolerance(1e-2, 1e-3);
