// ResNet-50 as torchvision builds it (v1.5: the stride on each Bottleneck's 3x3 conv), in
// LibTorch modules, so tricks measured on a real network measure the one people train.
// Parameter and buffer names are torchvision's (layer1.0.conv1.weight, fc.bias, ...), and so
// is the initialisation.
//
//   auto resnet50 = trickbench::workloads::ResNet();        // 25,557,032 parameters
//   auto logits = resnet50->forward(torch::randn({8, 3, 224, 224}));  // [8, 1000]
//
//   // The same architecture for a 2-core CPU (516,058 parameters; a forward and backward
//   // of 8 32x32 images took ~10 ms there, 32 images ~15 ms):
//   auto small = trickbench::workloads::ResNet(trickbench::workloads::kSmallResNet);
//
//   // One stage alone (layer3 of ResNet-50), for a trick that times a stage:
//   using namespace trickbench::workloads;
//   auto layer3 = ResNetStage(ResNetStageShape(ResNetSize{}, 2));
//   auto y = layer3->forward(torch::randn({8, 512, 14, 14}));  // [8, 1024, 14, 14]
//
//   // A forward's work, counted from the architecture (for a trick's Work()):
//   const ConvWork work = ResNetConvWork(ResNetSize{}, 224);  // work.macs: 4.09e9 an image
//
// Plain modules throughout: a channels_last input runs as it is.
#pragma once

#include <torch/types.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <array>
#include <cstdint>

namespace trickbench::workloads {

// A Bottleneck's output has this many times its width in channels.
inline constexpr int64_t kBottleneckExpansion = 4;

struct ResNetSize {
  int64_t in_channels = 3;
  int64_t base_width = 64;  // the stem's and stage 0's width; each later stage doubles it
  std::array<int64_t, 4> blocks = {3, 4, 6, 3};  // Bottlenecks per stage
  int64_t classes = 1000;
};

// ResNet-50's shape at 1/4 the width with one block a stage, two in stage 0 so that a
// block without downsampling is there too. Meant for 32x32 inputs.
inline constexpr ResNetSize kSmallResNet{
    .in_channels = 3, .base_width = 16, .blocks = {2, 1, 1, 1}, .classes = 10};

// 1x1 conv (reduce to `width`) - 3x3 conv (stride) - 1x1 conv (expand to width * 4),
// each followed by BatchNorm, ReLU after the first two and after the residual sum.
class BottleneckImpl : public torch::nn::Module {
 public:
  BottleneckImpl(int64_t in_channels, int64_t width, int64_t stride);
  torch::Tensor forward(const torch::Tensor& x);
  int64_t out_channels() const { return width_ * kBottleneckExpansion; }

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  // 1x1 conv (stride) + BatchNorm on the skip path; null where the input already has
  // the output's shape.
  torch::nn::Sequential downsample{nullptr};

 private:
  int64_t width_;
};
TORCH_MODULE(Bottleneck);

// What one stage is built from: the arguments of ResNetStage.
struct StageShape {
  int64_t in_channels;
  int64_t width;   // the Bottlenecks' inner width; the stage outputs width * 4 channels
  int64_t blocks;  // Bottlenecks in the stage
  int64_t stride;  // of the first Bottleneck: 1 for stage 0 (the max pool has halved), else 2
};

// Stage `stage` (0..3; torchvision's layer1..layer4) of a ResNet of `size`.
StageShape ResNetStageShape(const ResNetSize& size, int64_t stage);

// A stage: `blocks` Bottlenecks, the first one strided and downsampling the skip path.
// Input [N, in_channels, H, W], output [N, width * 4, H / stride, W / stride].
torch::nn::Sequential ResNetStage(const StageShape& shape);

// Stem (7x7 conv stride 2, BN, ReLU, 3x3 max pool stride 2), the four stages, global
// average pool, fully connected classifier. The default size is ResNet-50.
class ResNetImpl : public torch::nn::Module {
 public:
  explicit ResNetImpl(const ResNetSize& size = {});
  torch::Tensor forward(torch::Tensor x);
  const ResNetSize& size() const { return size_; }

  // The pieces of forward, for tricks that wrap or time them separately.
  torch::Tensor Stem(const torch::Tensor& x);
  torch::nn::Sequential& stage(int64_t i) { return stages_.at(i); }
  torch::Tensor Head(const torch::Tensor& x);  // [N, C, h, w] -> [N, classes]

 private:
  ResNetSize size_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  std::array<torch::nn::Sequential, 4> stages_{nullptr, nullptr, nullptr, nullptr};
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(ResNet);

// What the convolutions (and, for a whole network, the classifier) of one forward do per
// image, counted from the architecture as ResNet() and ResNetStage() build it: what a
// trick's Work() derives its FLOP, traffic and working set from, so that every trick on
// these modules sizes them alike. BatchNorm, ReLU, pooling and the residual sums are left
// out (under 1 % of ResNet-50's multiply-adds).
struct ConvWork {
  double macs = 0;     // multiply-adds of the convolutions and the classifier
  double inputs = 0;   // elements the convolutions read (the classifier's left out)
  double outputs = 0;  // elements the convolutions write (the classifier's left out)
  double weights = 0;  // of the convolutions and the classifier; biases and BatchNorm's left out

  // Counts a convolution padded by kernel / 2, as ResNet's and SmallCnn's are, on
  // `side` x `side` inputs; returns its output's side.
  int64_t AddConv(int64_t in, int64_t out, int64_t kernel, int64_t side, int64_t stride);
  ConvWork& operator+=(const ConvWork& other);
};

// What ResNetStage(shape) does on `side` x `side` inputs. The first n Bottlenecks of a
// stage are the stage of n blocks, so set shape.blocks to count them; 0 counts nothing.
ConvWork StageConvWork(const StageShape& shape, int64_t side);

// What ResNet(size) does on `image` x `image` inputs: stem, four stages, classifier.
// ResNet-50 at 224x224: 4.09e9 multiply-adds (torchvision's "4.09 GFLOPS") and 25.50 M
// weights (its 25.56 M parameters less BatchNorm's and the classifier's bias).
ConvWork ResNetConvWork(const ResNetSize& size, int64_t image);

}  // namespace trickbench::workloads
