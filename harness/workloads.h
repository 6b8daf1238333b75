// Workloads shared by tricks: one definition of each model, so that two tricks that
// train "the MLP" train the same thing, and sizes change in one place.
//
//   auto model = trickbench::workloads::Mlp({.in = 512, .hidden = 1024, .out = 10});
//   auto x = torch::randn({64, 512});
//   auto loss = torch::nn::functional::cross_entropy(model->forward(x), labels);
//
// Sizes are chosen so one training step takes milliseconds on a 2-core CPU.
#pragma once

#include <torch/torch.h>

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

// A seeded classification batch for a model with `in` inputs and `classes` outputs.
struct Batch {
  torch::Tensor input;
  torch::Tensor target;  // int64 class indices
};
Batch ClassificationBatch(int64_t batch, int64_t in, int64_t classes,
                          const torch::Device& device = torch::kCPU);

// One SGD training step: forward, cross-entropy, backward, step. Returns the loss.
// Zeroing the grads is the caller's business (that is what some tricks measure).
torch::Tensor TrainStep(torch::nn::Sequential& model, torch::optim::Optimizer& optimizer,
                        const Batch& batch);

// Parameters (and the flattened grads when defined) as one tensor list, for Result().
std::vector<torch::Tensor> Parameters(const torch::nn::Module& model);

}  // namespace trickbench::workloads
