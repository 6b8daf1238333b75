#include <torch/nn/module.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include "workloads/workloads.h"

#include <gtest/gtest.h>

namespace trickbench::workloads {
namespace {

TEST(Mlp, ShapesAndLayerCount) {
  auto m = Mlp({.in = 7, .hidden = 5, .out = 3, .layers = 2});
  EXPECT_EQ(m->forward(torch::randn({4, 7})).sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(m->size(), 5u);  // 2 x (Linear, ReLU) + Linear
}

// The declared work of the MLP tricks rests on these two: the count is the module's own.
TEST(Mlp, ParameterCountAndFlopMatchTheModule) {
  for (const MlpSize size : {MlpSize{}, MlpSize{.in = 7, .hidden = 5, .out = 3, .layers = 1}}) {
    int64_t counted = 0;
    for (const auto& p : Mlp(size)->parameters()) counted += p.numel();
    EXPECT_EQ(MlpParameters(size), counted);
    // One multiply-add per weight per sample.
    const int64_t weights = counted - size.layers * size.hidden - size.out;
    EXPECT_DOUBLE_EQ(MlpForwardFlop(size, 4), 2.0 * weights * 4);
  }
  // 7 inputs, 5 Linear and 5 ReLU outputs, 3 logits per sample.
  EXPECT_DOUBLE_EQ(MlpActivations({.in = 7, .hidden = 5, .out = 3, .layers = 1}, 4), 4.0 * 20);
}

TEST(SmallCnn, ForwardShapeAndConvBiasSwitch) {
  auto with_bias = SmallCnn(CnnSize{.channels = 8, .blocks = 2, .classes = 4});
  auto no_bias = SmallCnn(CnnSize{.channels = 8, .blocks = 2, .classes = 4, .conv_bias = false});
  const auto batch = ImageBatch(2, 3, 16, 16, 4);
  EXPECT_EQ(with_bias->forward(batch.input).sizes(), (std::vector<int64_t>{2, 4}));
  auto count = [](const torch::nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters()) n += p.numel();
    return n;
  };
  // 5 convs of 8 output channels lose their bias.
  EXPECT_EQ(count(*with_bias) - count(*no_bias), 5 * 8);
  EXPECT_EQ(with_bias->blocks().size(), 2u);
}

TEST(TrainStep, ChangesTheParametersAndReturnsAFiniteLoss) {
  torch::manual_seed(0);
  auto m = Mlp({.in = 6, .hidden = 8, .out = 3, .layers = 1});
  torch::optim::SGD sgd(m->parameters(), 0.1);
  const auto before = Parameters(*m);
  const auto loss = TrainStep(m, sgd, ClassificationBatch(5, 6, 3));
  EXPECT_TRUE(std::isfinite(loss.item<float>()));
  const auto after = Parameters(*m);
  EXPECT_FALSE(torch::equal(before[0], after[0]));
}

}  // namespace
}  // namespace trickbench::workloads

namespace trickbench::workloads {
namespace {

TEST(UpdateInSteps, CountsSgdStepsAndTheirDirection) {
  const torch::Tensor w0 = torch::ones({3}), g = torch::tensor({0.5, -1.0, 2.0});
  const torch::Tensor b0 = torch::zeros({2}), no_grad = torch::full({2}, 1e-9);
  const double lr = 0.1;
  // Two steps along g for w, a bias without a real gradient that still moved.
  const auto [sizes, cosines] =
      UpdateInSteps({w0, b0}, {w0 - 2 * lr * g, b0 + 0.5}, {g, no_grad}, lr);
  EXPECT_NEAR(sizes[0].item<double>(), 2.0, 1e-6);
  EXPECT_NEAR(cosines[0].item<double>(), 1.0, 1e-6);
  EXPECT_EQ(sizes[1].item<double>(), 0);  // no yardstick
  const auto one = UpdateInSteps({w0}, {w0 - lr * g}, {g}, lr);
  EXPECT_NEAR(one.first[0].item<double>(), 1.0, 1e-6);  // a dropped update halves it
  const auto back = UpdateInSteps({w0}, {w0 + lr * g}, {g}, lr);
  EXPECT_NEAR(back.second[0].item<double>(), -1.0, 1e-6);
  EXPECT_THROW(UpdateInSteps({w0}, {w0, w0}, {g}, lr), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench::workloads
