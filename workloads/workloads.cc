#include "workloads/workloads.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

namespace trickbench::workloads {

torch::nn::Sequential Mlp(const MlpSize& size, const torch::Device& device) {
  torch::nn::Sequential model;
  int64_t width = size.in;
  for (int64_t i = 0; i < size.layers; ++i) {
    model->push_back(torch::nn::Linear(width, size.hidden));
    model->push_back(torch::nn::ReLU());
    width = size.hidden;
  }
  model->push_back(torch::nn::Linear(width, size.out));
  model->to(device);
  return model;
}

int64_t MlpParameters(const MlpSize& size) {
  const int64_t hidden = size.in * size.hidden + (size.layers - 1) * size.hidden * size.hidden;
  return hidden + size.layers * size.hidden + size.hidden * size.out + size.out;
}

double MlpForwardFlop(const MlpSize& size, int64_t batch) {
  const double macs = static_cast<double>(size.in) * size.hidden +
                      static_cast<double>(size.layers - 1) * size.hidden * size.hidden +
                      static_cast<double>(size.hidden) * size.out;
  return 2.0 * macs * static_cast<double>(batch);
}

double MlpActivations(const MlpSize& size, int64_t batch) {
  return static_cast<double>(batch) *
         static_cast<double>(size.in + 2 * size.layers * size.hidden + size.out);
}

Batch ClassificationBatch(int64_t batch, int64_t in, int64_t classes, const torch::Device& device) {
  Batch b;
  b.input = torch::randn({batch, in}).to(device);
  b.target = torch::randint(classes, {batch}, torch::kLong).to(device);
  return b;
}

Batch ImageBatch(int64_t batch, int64_t channels, int64_t height, int64_t width, int64_t classes,
                 const torch::Device& device) {
  Batch b;
  b.input = torch::randn({batch, channels, height, width}).to(device);
  b.target = torch::randint(classes, {batch}, torch::kLong).to(device);
  return b;
}

namespace {
torch::nn::Conv2d Conv3x3(int64_t in, int64_t out, bool bias) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1).bias(bias));
}
}  // namespace

SmallCnnImpl::SmallCnnImpl(const CnnSize& size) : size_(size) {
  stem_conv_ =
      register_module("stem_conv", Conv3x3(size.in_channels, size.channels, size.conv_bias));
  stem_bn_ = register_module("stem_bn", torch::nn::BatchNorm2d(size.channels));
  for (int64_t i = 0; i < size.blocks; ++i) {
    Block b;
    const std::string p = "block" + std::to_string(i) + "_";
    b.conv1 = register_module(p + "conv1", Conv3x3(size.channels, size.channels, size.conv_bias));
    b.bn1 = register_module(p + "bn1", torch::nn::BatchNorm2d(size.channels));
    b.conv2 = register_module(p + "conv2", Conv3x3(size.channels, size.channels, size.conv_bias));
    b.bn2 = register_module(p + "bn2", torch::nn::BatchNorm2d(size.channels));
    blocks_.push_back(b);
  }
  fc_ = register_module("fc", torch::nn::Linear(size.channels, size.classes));
}

torch::Tensor SmallCnnImpl::Block::forward(const torch::Tensor& x) {
  auto y = torch::relu(bn1->forward(conv1->forward(x)));
  y = bn2->forward(conv2->forward(y));
  return torch::relu(y + x);
}

torch::Tensor SmallCnnImpl::Stem(const torch::Tensor& x) {
  return torch::relu(stem_bn_->forward(stem_conv_->forward(x)));
}

torch::Tensor SmallCnnImpl::Head(const torch::Tensor& x) { return fc_->forward(x.mean({2, 3})); }

torch::Tensor SmallCnnImpl::forward(torch::Tensor x) {
  x = Stem(x);
  for (auto& b : blocks_) x = b.forward(x);
  return Head(x);
}

std::vector<torch::Tensor> Parameters(const torch::nn::Module& model) {
  std::vector<torch::Tensor> out;
  for (const auto& p : model.parameters()) out.push_back(p.detach().clone());
  return out;
}

std::vector<torch::Tensor> HostParameters(const torch::nn::Module& model) {
  std::vector<torch::Tensor> out;
  for (const auto& p : model.parameters())
    out.push_back(p.detach().to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true));
  return out;
}

std::pair<torch::Tensor, torch::Tensor> UpdateInSteps(const std::vector<torch::Tensor>& initial,
                                                      const std::vector<torch::Tensor>& params,
                                                      const std::vector<torch::Tensor>& g0,
                                                      double lr) {
  if (initial.size() != params.size() || g0.size() != params.size()) {
    throw std::invalid_argument("UpdateInSteps: " + std::to_string(initial.size()) + " initial, " +
                                std::to_string(params.size()) + " parameters, " +
                                std::to_string(g0.size()) + " gradients");
  }
  double largest = 0;
  for (const auto& g : g0) largest = std::max(largest, g.norm().item<double>());
  std::vector<double> steps, cosines;
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor update = initial[i] - params[i].contiguous();
    const double g = g0[i].norm().item<double>();
    const double u = update.norm().item<double>();
    const bool yardstick = g > 0 && g >= 1e-4 * largest;
    steps.push_back(yardstick ? u / (lr * g) : 0);
    cosines.push_back(yardstick && u > 0 ? (update * g0[i]).sum().item<double>() / (u * g) : 0);
  }
  return {torch::tensor(steps, torch::kDouble), torch::tensor(cosines, torch::kDouble)};
}

}  // namespace trickbench::workloads
