#include "harness/workloads.h"

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

Batch ClassificationBatch(int64_t batch, int64_t in, int64_t classes, const torch::Device& device) {
  Batch b;
  b.input = torch::randn({batch, in}).to(device);
  b.target = torch::randint(classes, {batch}, torch::kLong).to(device);
  return b;
}

torch::Tensor TrainStep(torch::nn::Sequential& model, torch::optim::Optimizer& optimizer,
                        const Batch& batch) {
  auto loss = torch::nn::functional::cross_entropy(model->forward(batch.input), batch.target);
  loss.backward();
  optimizer.step();
  return loss.detach();
}

std::vector<torch::Tensor> Parameters(const torch::nn::Module& model) {
  std::vector<torch::Tensor> out;
  for (const auto& p : model.parameters()) out.push_back(p.detach().clone());
  return out;
}

}  // namespace trickbench::workloads
