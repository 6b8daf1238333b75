#include "workloads/resnet.h"

#include <torch/nn/init.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <stdexcept>
#include <string>

namespace trickbench::workloads {

namespace {

// Bias-free, as every conv in torchvision's ResNet (a BatchNorm follows each), and
// initialised as torchvision does (kaiming normal, fan-out): LibTorch's default, kaiming
// uniform with a = sqrt(5), draws weights with 1/6 of that variance where fan-in equals
// fan-out, and a trick's first steps would not be the ones torchvision users see.
torch::nn::Conv2d Conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  torch::nn::Conv2d conv(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
  torch::NoGradGuard no_grad;
  torch::nn::init::kaiming_normal_(conv->weight, /*a=*/0, torch::kFanOut, torch::kReLU);
  return conv;
}

// Whether a Bottleneck needs the 1x1 conv on its skip path: the one rule BottleneckImpl
// builds by and StageConvWork counts by.
bool Downsamples(int64_t in_channels, int64_t out_channels, int64_t stride) {
  return stride != 1 || in_channels != out_channels;
}

// The output side of a window of `kernel` padded by kernel / 2: Conv()'s convolutions,
// and the stem's 3x3 max pool.
int64_t OutputSide(int64_t side, int64_t kernel, int64_t stride) {
  return (side + 2 * (kernel / 2) - kernel) / stride + 1;
}

}  // namespace

BottleneckImpl::BottleneckImpl(int64_t in_channels, int64_t width, int64_t stride) : width_(width) {
  conv1 = register_module("conv1", Conv(in_channels, width, 1, 1));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(width));
  conv2 = register_module("conv2", Conv(width, width, 3, stride));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(width));
  conv3 = register_module("conv3", Conv(width, out_channels(), 1, 1));
  bn3 = register_module("bn3", torch::nn::BatchNorm2d(out_channels()));
  if (Downsamples(in_channels, out_channels(), stride)) {
    downsample = register_module("downsample",
                                 torch::nn::Sequential(Conv(in_channels, out_channels(), 1, stride),
                                                       torch::nn::BatchNorm2d(out_channels())));
  }
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor& x) {
  auto y = torch::relu(bn1->forward(conv1->forward(x)));
  y = torch::relu(bn2->forward(conv2->forward(y)));
  y = bn3->forward(conv3->forward(y));
  return torch::relu(y + (downsample ? downsample->forward(x) : x));
}

StageShape ResNetStageShape(const ResNetSize& size, int64_t stage) {
  if (stage < 0 || stage >= static_cast<int64_t>(size.blocks.size())) {
    throw std::out_of_range("ResNetStageShape: stage " + std::to_string(stage) +
                            ", a ResNet has stages 0 to 3");
  }
  const int64_t width = size.base_width << stage;
  // Stage 0 takes the stem's base_width channels; each later one its predecessor's output.
  const int64_t in_channels = stage == 0 ? size.base_width : (width / 2) * kBottleneckExpansion;
  return {.in_channels = in_channels,
          .width = width,
          .blocks = size.blocks[stage],
          .stride = stage == 0 ? 1 : 2};
}

torch::nn::Sequential ResNetStage(const StageShape& shape) {
  if (shape.blocks < 1) {
    throw std::invalid_argument("ResNetStage: " + std::to_string(shape.blocks) +
                                " blocks, a stage needs at least one");
  }
  torch::nn::Sequential stage;
  stage->push_back(Bottleneck(shape.in_channels, shape.width, shape.stride));
  for (int64_t i = 1; i < shape.blocks; ++i) {
    stage->push_back(Bottleneck(shape.width * kBottleneckExpansion, shape.width, 1));
  }
  return stage;
}

ResNetImpl::ResNetImpl(const ResNetSize& size) : size_(size) {
  conv1_ = register_module("conv1", Conv(size.in_channels, size.base_width, 7, 2));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(size.base_width));
  for (int64_t i = 0; i < 4; ++i) {
    stages_[i] =
        register_module("layer" + std::to_string(i + 1), ResNetStage(ResNetStageShape(size, i)));
  }
  const int64_t features = (size.base_width << 3) * kBottleneckExpansion;
  fc_ = register_module("fc", torch::nn::Linear(features, size.classes));
}

torch::Tensor ResNetImpl::Stem(const torch::Tensor& x) {
  return torch::max_pool2d(torch::relu(bn1_->forward(conv1_->forward(x))), /*kernel_size=*/3,
                           /*stride=*/2, /*padding=*/1);
}

torch::Tensor ResNetImpl::Head(const torch::Tensor& x) {
  return fc_->forward(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
}

torch::Tensor ResNetImpl::forward(torch::Tensor x) {
  x = Stem(x);
  for (auto& stage : stages_) x = stage->forward(x);
  return Head(x);
}

int64_t ConvWork::AddConv(int64_t in, int64_t out, int64_t kernel, int64_t side, int64_t stride) {
  const int64_t out_side = OutputSide(side, kernel, stride);
  const double weight = static_cast<double>(in) * static_cast<double>(out * kernel * kernel);
  const double pixels = static_cast<double>(out_side * out_side);
  macs += weight * pixels;
  inputs += static_cast<double>(in * side * side);
  outputs += static_cast<double>(out) * pixels;
  weights += weight;
  return out_side;
}

ConvWork& ConvWork::operator+=(const ConvWork& other) {
  macs += other.macs;
  inputs += other.inputs;
  outputs += other.outputs;
  weights += other.weights;
  return *this;
}

ConvWork StageConvWork(const StageShape& shape, int64_t side) {
  if (shape.blocks < 0) {
    throw std::invalid_argument("StageConvWork: " + std::to_string(shape.blocks) + " blocks");
  }
  ConvWork work;
  const int64_t out = shape.width * kBottleneckExpansion;
  for (int64_t b = 0; b < shape.blocks; ++b) {
    // As ResNetStage builds them: the first Bottleneck alone takes the stage's input
    // channels and strides (on its 3x3 conv and its downsample).
    const int64_t in = b == 0 ? shape.in_channels : out;
    const int64_t stride = b == 0 ? shape.stride : 1;
    work.AddConv(in, shape.width, 1, side, 1);
    const int64_t out_side = work.AddConv(shape.width, shape.width, 3, side, stride);
    work.AddConv(shape.width, out, 1, out_side, 1);
    if (Downsamples(in, out, stride)) work.AddConv(in, out, 1, side, stride);
    side = out_side;
  }
  return work;
}

ConvWork ResNetConvWork(const ResNetSize& size, int64_t image) {
  ConvWork work;
  int64_t side = work.AddConv(size.in_channels, size.base_width, 7, image, 2);
  side = OutputSide(side, 3, 2);  // the stem's max pool
  int64_t features = 0;           // the last stage's output channels: the classifier's input
  for (int64_t i = 0; i < 4; ++i) {
    const StageShape stage = ResNetStageShape(size, i);
    work += StageConvWork(stage, side);
    side = OutputSide(side, 3, stage.stride);
    features = stage.width * kBottleneckExpansion;
  }
  const double classifier = static_cast<double>(features) * static_cast<double>(size.classes);
  work.macs += classifier;
  work.weights += classifier;
  return work;
}

}  // namespace trickbench::workloads
