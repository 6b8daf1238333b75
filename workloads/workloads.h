// Workloads shared by tricks: one definition of each model, so that two tricks that
// train "the MLP" train the same thing, and sizes change in one place.
//
//   auto model = trickbench::workloads::Mlp({.in = 512, .hidden = 1024, .out = 10});
//   auto x = torch::randn({64, 512});
//   auto loss = torch::nn::functional::cross_entropy(model->forward(x), labels);
//
// Sizes are chosen so one training step takes milliseconds on a 2-core CPU.
#pragma once

#include <torch/types.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/optimizer.h>

#include <cstdint>

namespace trickbench::workloads {

struct MlpSize {
  int64_t in = 512;
  int64_t hidden = 1024;
  int64_t out = 10;
  int64_t layers = 3;  // hidden layers, each Linear + ReLU
};

// Linear-ReLU stack ending in a Linear to `out` logits.
torch::nn::Sequential Mlp(const MlpSize& size = {}, const torch::Device& device = torch::kCPU);
// What Mlp(size) holds and does, for a trick's declared work (TrickDef::Work): its
// parameter count, and the FLOP of one forward over `batch` samples (2 per
// multiply-add; a backward is about twice that).
int64_t MlpParameters(const MlpSize& size);
double MlpForwardFlop(const MlpSize& size, int64_t batch);
// The elements one forward over `batch` samples holds: the input, each hidden layer's
// Linear and ReLU outputs, the logits (what a training step keeps for its backward).
double MlpActivations(const MlpSize& size, int64_t batch);

// A seeded classification batch for a model with `in` inputs and `classes` outputs.
struct Batch {
  torch::Tensor input;
  torch::Tensor target;  // int64 class indices
};
Batch ClassificationBatch(int64_t batch, int64_t in, int64_t classes,
                          const torch::Device& device = torch::kCPU);

// A seeded image classification batch, NCHW float input.
Batch ImageBatch(int64_t batch, int64_t channels, int64_t height, int64_t width, int64_t classes,
                 const torch::Device& device = torch::kCPU);

// One training step: forward, cross-entropy, backward, optimizer step. Returns the loss.
// Zeroing the grads is the caller's business (that is what some tricks measure).
// Model: any module holder whose forward takes and returns one tensor.
template <typename Model>
torch::Tensor TrainStep(Model& model, torch::optim::Optimizer& optimizer, const Batch& batch) {
  auto loss = torch::nn::functional::cross_entropy(model->forward(batch.input), batch.target);
  loss.backward();
  optimizer.step();
  return loss.detach();
}

// One optimizer step accumulated over `micro_batches` chunks of `batch`: grads set to
// none, each chunk's loss scaled by 1 / micro_batches and backpropagated, then one step.
// With micro_batches 1 it is a plain full-batch step (TrainStep after zeroing).
template <typename Model>
void AccumulatedStep(Model& model, torch::optim::Optimizer& optimizer, const Batch& batch,
                     int64_t micro_batches) {
  model->zero_grad(/*set_to_none=*/true);
  const auto inputs = batch.input.chunk(micro_batches);
  const auto targets = batch.target.chunk(micro_batches);
  for (int64_t i = 0; i < micro_batches; ++i) {
    const auto loss = torch::nn::functional::cross_entropy(model->forward(inputs[i]), targets[i]);
    (loss / static_cast<double>(micro_batches)).backward();
  }
  optimizer.step();
}

// How far and which way each parameter moved from `initial` to `params`, against one
// gradient `g0` at the start: the size in SGD steps of rate `lr`, |theta_0 - theta| /
// (lr |g0|), and the cosine between the move and g0. Training tricks compare these
// besides the weights: a dropped update halves the size while reduced-precision
// rounding moves it by thousandths, and weights of ~0.03 cannot show either.
// A parameter whose g0 is below 1e-4 of the largest (a conv bias before BatchNorm: no
// real gradient) gets 0 for both: it has no yardstick.
// Returns {sizes, cosines}: float64, one entry per parameter.
std::pair<torch::Tensor, torch::Tensor> UpdateInSteps(const std::vector<torch::Tensor>& initial,
                                                      const std::vector<torch::Tensor>& params,
                                                      const std::vector<torch::Tensor>& g0,
                                                      double lr);

struct CnnSize {
  int64_t in_channels = 3;
  int64_t channels = 32;  // width of every residual block
  int64_t blocks = 2;     // residual blocks after the stem
  int64_t classes = 10;
  bool conv_bias = true;  // bias on convs followed by BatchNorm (conv_bias_before_bn)
};

// A small ResNet-style CNN: stem (conv3x3-BN-ReLU), `blocks` residual blocks
// (conv3x3-BN-ReLU-conv3x3-BN, + skip, ReLU), global average pool, linear classifier.
// 32x32 inputs keep a training step in the tens of milliseconds on a 2-core CPU.
class SmallCnnImpl : public torch::nn::Module {
 public:
  explicit SmallCnnImpl(const CnnSize& size = {});
  torch::Tensor forward(torch::Tensor x);
  const CnnSize& size() const { return size_; }

  // Each residual block, exposed for tricks that wrap blocks (checkpointing).
  struct Block {
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
    torch::Tensor forward(const torch::Tensor& x);
  };
  std::vector<Block>& blocks() { return blocks_; }
  torch::Tensor Stem(const torch::Tensor& x);
  torch::Tensor Head(const torch::Tensor& x);

 private:
  CnnSize size_;
  torch::nn::Conv2d stem_conv_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  std::vector<Block> blocks_;
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(SmallCnn);

// Parameters (and the flattened grads when defined) as one tensor list, for Result().
std::vector<torch::Tensor> Parameters(const torch::nn::Module& model);

// Parameters copied to the host: reference copies a trick keeps beside a device model
// (initial weights, a yardstick gradient) would otherwise count in every variant's
// device peak and dilute the memory saving being graded.
std::vector<torch::Tensor> HostParameters(const torch::nn::Module& model);

}  // namespace trickbench::workloads
