// grad_checkpointing (B): recompute activations in backward instead of storing them.
//
// A training step of a stack of residual blocks at depth 8, 16 and 32 blocks (ShapeOf).
// On the CPU the shared SmallCnn (blocks of two 3x3 convs with BatchNorm; 16 channels, 8
// images of 16x16). On CUDA ResNet-50's Bottleneck (workloads/resnet.h) at its layer1
// shape, as ResNet-50 trains it: 128 images at 56x56, the first Bottleneck widening
// 64 channels to 256 through its downsample path, the rest 256 -> 64 -> 64 -> 256; a
// global average pool and a 1000-way classifier after them; no stem, the input stands
// for its output (so at depth 3 this is ResNet-50's layer1 and head). The baseline stores
// every block's activations for backward; the optimized variant splits the blocks into
// ~sqrt(depth) segments with training/checkpoint.h, keeping only segment inputs and
// recomputing each segment in backward (one extra forward of all but the last segment).
// Peak memory per depth is the main result: it should grow ~linearly with depth for the
// baseline and ~with sqrt(depth) for the checkpointed run (Chen et al. 2016), for ~1/3
// more time.
//
// Equivalence: the recompute runs the same kernels on the same inputs (on CUDA with
// cuDNN deterministic and not autotuned: SetUp), so parameters and grads are bitwise
// equal. (BatchNorm running statistics are updated twice per step in the checkpointed
// run, forward and recompute, as with PyTorch's checkpoint; they are buffers used only
// in eval mode and are not part of the result.) The CPU cases check this; the CUDA
// Bottleneck stack is unverified on a GPU (its code run on the CPU at 1 and 2 images,
// depth 8 and 32: the variants agreed bitwise).
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "harness/trick.h"
#include "training/checkpoint.h"
#include "workloads/resnet.h"
#include "workloads/workloads.h"

namespace {

namespace tr = trickbench::training;
namespace wl = trickbench::workloads;

// The case's network and batch: the one place SetUp and Work() read them.
struct Shape {
  int64_t depth, batch;
  int64_t resolution;        // the blocks' height and width
  bool bottlenecks = false;  // CUDA: ResNet-50 Bottlenecks (Layer1); else SmallCnn blocks
  int64_t channels = 0;      // SmallCnn's width
};
Shape ShapeOf(const trickbench::Instance& s) {
  const int64_t depth = s.params.Int("depth");
  // 128 images: the baseline's peak at depth 32 is about 41 GB (Work's working set: 40
  // GB; the CPU meter read 322 MB a step at 1 image), well inside an H200's 139 GiB; the
  // checkpointed run's about 11 GB (86 MB at 1 image).
  if (s.device.is_cuda())
    return {.depth = depth, .batch = 128, .resolution = 56, .bottlenecks = true};
  return {.depth = depth, .batch = 8, .resolution = 16, .channels = 16};
}

// ResNet-50's layer1 (stage 0: 64 channels in from the stem, 64 wide, 256 out, stride
// 1) with `depth` Bottlenecks.
wl::StageShape Layer1(int64_t depth) {
  wl::StageShape shape = wl::ResNetStageShape(wl::ResNetSize{}, 0);
  shape.blocks = depth;
  return shape;
}
constexpr int64_t kCudaClasses = 1000;

int64_t Segments(int64_t depth) { return std::lround(std::sqrt(static_cast<double>(depth))); }

// What a step trains: the module holding every parameter, what runs before and after the
// blocks, and the blocks as layers CheckpointSequential can segment.
struct Net {
  std::shared_ptr<torch::nn::Module> module;
  tr::Segment stem, head;
  std::vector<tr::Layer> blocks;
};

// The shared SmallCnn; a block's parameters are its convs' and BatchNorms'.
Net SmallCnnNet(const Shape& shape, const torch::Device& device) {
  wl::SmallCnn cnn(wl::CnnSize{
      .in_channels = 3, .channels = shape.channels, .blocks = shape.depth, .classes = 10});
  cnn->to(device);
  Net net{.module = cnn.ptr(),
          .stem = [cnn](const torch::Tensor& x) mutable { return cnn->Stem(x); },
          .head = [cnn](const torch::Tensor& x) mutable { return cnn->Head(x); }};
  for (auto& block : cnn->blocks()) {
    tr::Layer layer{
        .forward = [block](const torch::Tensor& x) mutable { return block.forward(x); }};
    const std::vector<std::shared_ptr<torch::nn::Module>> parts{block.conv1.ptr(), block.bn1.ptr(),
                                                                block.conv2.ptr(), block.bn2.ptr()};
    for (const auto& m : parts) {
      for (const auto& p : m->parameters()) layer.params.push_back(p);
    }
    net.blocks.push_back(std::move(layer));
  }
  return net;
}

// ResNet-50's Bottlenecks at layer1's shape (ResNetStage), then ResNet's head: global
// average pool, fully connected classifier. The input stands for the stem's output.
Net BottleneckNet(const Shape& shape, const torch::Device& device) {
  auto module = std::make_shared<torch::nn::Module>();
  const wl::StageShape layer1 = Layer1(shape.depth);
  auto blocks = module->register_module("layer1", wl::ResNetStage(layer1));
  auto fc = module->register_module(
      "fc", torch::nn::Linear(layer1.width * wl::kBottleneckExpansion, kCudaClasses));
  module->to(device);
  Net net{.module = module,
          .stem = [](const torch::Tensor& x) { return x; },
          .head =
              [fc](const torch::Tensor& x) mutable {
                return fc->forward(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
              }};
  for (size_t i = 0; i < blocks->size(); ++i) {
    wl::Bottleneck block(blocks->ptr<wl::BottleneckImpl>(i));
    net.blocks.push_back(
        {.forward = [block](const torch::Tensor& x) mutable { return block->forward(x); },
         .params = block->parameters()});
  }
  return net;
}

class GradCheckpointing : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    // Bitwise equivalence needs the same backward kernels on both sides; on CUDA cuDNN
    // may otherwise pick algorithms that accumulate with atomics (a different sum each
    // run) or autotune a different one per shape. Deterministic, not autotuned.
    if (s.device.is_cuda()) {
      at::globalContext().setDeterministicCuDNN(true);
      at::globalContext().setBenchmarkCuDNN(false);
    }
    const Shape shape = ShapeOf(s);
    depth_ = shape.depth;
    net_ = shape.bottlenecks ? BottleneckNet(shape, s.device) : SmallCnnNet(shape, s.device);
    optimizer_ = std::make_unique<torch::optim::SGD>(net_.module->parameters(),
                                                     torch::optim::SGDOptions(0.01));
    if (shape.bottlenecks) {
      const wl::StageShape layer1 = Layer1(shape.depth);
      batch_ = wl::ImageBatch(shape.batch, layer1.in_channels, shape.resolution, shape.resolution,
                              kCudaClasses, s.device);
      batch_.input.relu_();  // as the stem's output (ReLU, max pool): non-negative
    } else {
      batch_ = wl::ImageBatch(shape.batch, 3, shape.resolution, shape.resolution, 10, s.device);
    }
    block_forwards_ = std::make_shared<int64_t>(0);
    for (auto& layer : net_.blocks) {
      layer.forward = [forward = layer.forward, counter = block_forwards_](const torch::Tensor& x) {
        ++*counter;
        return forward(x);
      };
    }
  }

  void StoreAll() { Step(/*segments=*/0); }
  void CheckpointSqrt() { Step(Segments(depth_)); }

  trickbench::Tensors Result() override {
    trickbench::Tensors out = wl::Parameters(*net_.module);
    for (const auto& p : net_.module->parameters()) out.push_back(p.grad().clone());
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const int64_t recomputed = forwards_last_step_ - depth_;
    if (variant == "checkpoint_sqrt" && recomputed <= 0)
      return "no block was recomputed in backward";
    if (variant == "store_all" && recomputed != 0) return "blocks ran more than once per step";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"blocks", static_cast<double>(depth_)},
            // The plain run is one segment. (A counter that is 0 in every repetition
            // makes Google Benchmark's cv NaN, which the harness cannot read back.)
            {"segments", static_cast<double>(std::max<int64_t>(segments_, 1))},
            {"block_forwards_per_step", static_cast<double>(forwards_last_step_)}};
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  void Step(int64_t segments) {
    segments_ = segments;
    const int64_t before = *block_forwards_;
    net_.module->zero_grad(/*set_to_none=*/true);
    torch::Tensor x = net_.stem(batch_.input);
    if (segments == 0) {
      for (const auto& layer : net_.blocks) x = layer.forward(x);
    } else {
      x = tr::CheckpointSequential(net_.blocks, segments, x);
    }
    auto loss = torch::nn::functional::cross_entropy(net_.head(x), batch_.target);
    loss.backward();
    optimizer_->step();
    forwards_last_step_ = *block_forwards_ - before;
  }

  int64_t depth_ = 0;
  int64_t segments_ = 0;
  Net net_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
  wl::Batch batch_;
  std::shared_ptr<int64_t> block_forwards_;
  int64_t forwards_last_step_ = 0;
};

// The blocks CheckpointSequential recomputes for checkpoint_sqrt: every segment's but the
// last (its split); none for store_all.
int64_t Recomputed(const trickbench::Instance& s, int64_t depth) {
  if (s.variant != "checkpoint_sqrt") return 0;
  const int64_t segments = Segments(depth);
  return depth * (segments - 1) / segments;
}

// One training step of the Bottleneck stack. The forward: its convolutions as
// workloads::StageConvWork counts them, and the classifier; backward twice the forward's
// (data and weight gradients), less the data gradient of the convs that read the input
// (the first block's conv1 and downsample), which needs none; checkpoint_sqrt one more
// forward of the recomputed blocks (the first ones: the stack of that many). Bytes: each
// conv output written and read about six times in forward and backward (BatchNorm, ReLU,
// the residual, their gradients), the recomputed blocks' six more; the weights read
// twice, their grads written, SGD's pass over both. Working set: the weights three times
// and what the baseline keeps for backward, per pixel the input's 64 channels and per
// block four 64-channel tensors (conv1, ReLU, conv2, ReLU outputs) and two of 256 (conv3's
// output, the block's).
trickbench::CaseWork BottleneckWork(const trickbench::Instance& s, const Shape& shape) {
  const wl::StageShape layer1 = Layer1(shape.depth);
  const double in = static_cast<double>(layer1.in_channels), w = static_cast<double>(layer1.width);
  const double out = w * wl::kBottleneckExpansion;
  const double n = static_cast<double>(shape.batch);
  const double pixels = static_cast<double>(shape.resolution) * shape.resolution * n;
  // Per image.
  const wl::ConvWork stack = wl::StageConvWork(layer1, shape.resolution);
  const wl::ConvWork recomputed =
      wl::StageConvWork(Layer1(Recomputed(s, shape.depth)), shape.resolution);
  const double forward = (stack.macs + out * kCudaClasses) * n;
  const double input_data_grads = (in * w + in * out) * pixels;
  const double weights = stack.weights + out * kCudaClasses;
  const double saved = in + static_cast<double>(shape.depth) * (4 * w + 2 * out);
  return {.flop = 2 * (3 * forward - input_data_grads + recomputed.macs * n),
          .bytes = 4 * (6 * weights + 12 * (stack.outputs + recomputed.outputs / 2) * n),
          .working_set = 4 * (3 * weights + saved * pixels)};
}

// One training step of SmallCnn: the forward's convolutions (a block is two 3x3 convs at
// full resolution), backward twice that, and for checkpoint_sqrt one more forward of every
// segment but the last. Bytes: each conv output written and read about six times in
// forward and backward, the recomputed blocks' six more; the weights read twice, their
// grads written, SGD's pass over both.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  if (shape.bottlenecks) return BottleneckWork(s, shape);
  const double c = static_cast<double>(shape.channels);
  const double hw = static_cast<double>(shape.resolution) * shape.resolution, n = shape.batch;
  const double block_macs = 2 * 9 * c * c * hw * n, block_outputs = 2 * c * hw * n;
  const double stem_macs = 3 * 9 * c * hw * n;
  const double recomputed = static_cast<double>(Recomputed(s, shape.depth));
  const double depth = static_cast<double>(shape.depth);
  const double weights = depth * 2 * 9 * c * c;
  return {.flop = 2 * (3 * (stem_macs + depth * block_macs) + recomputed * block_macs),
          .bytes = 4 * (6 * weights + 12 * (depth + recomputed / 2) * block_outputs),
          .working_set = 4 * (3 * weights + (depth + 1) * block_outputs)};
}

}  // namespace

TRICKBENCH_TRICK(grad_checkpointing, GradCheckpointing)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("memory O(n) -> O(sqrt n) (Chen et al. 2016), small slowdown")
    .Expect(trickbench::claim::LessMemory())
    // A cost without a bound: the article gives none (an extra forward of all but the
    // last segment suggests about a third more). The O(sqrt n) growth across depths is
    // shown by the cases' peaks, not graded: a verdict grades one setting.
    .Expect(trickbench::claim::Slower())
    // CUDA: depth 8 is about 1.3 TFLOP a step; depth 32 stores about 40 GB of activations.
    .Axis(trickbench::Axis::Int("depth", {8, 16, 32}))
    .Work(Work)
    .Trains()
    .Variant("store_all", &GradCheckpointing::StoreAll)
    .Variant("checkpoint_sqrt", &GradCheckpointing::CheckpointSqrt)
    .Bitwise();
