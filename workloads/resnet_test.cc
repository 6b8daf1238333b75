#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/utils.h>

#include "workloads/resnet.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace trickbench::workloads {
namespace {

int64_t CountParameters(const torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

using Shape = std::vector<int64_t>;

Shape Stride(const torch::nn::Conv2dImpl& conv) {
  return c10::ArrayRef<int64_t>(conv.options.stride()).vec();
}

TEST(ResNet50, HasTorchvisionsParametersUnderTorchvisionsNames) {
  const ResNet model;
  // torchvision.models.resnet50(): sum(p.numel() for p in m.parameters()).
  EXPECT_EQ(CountParameters(*model), 25'557'032);
  // 53 convs (49 in the main path, 4 downsampling), 53 BatchNorms (weight and bias), fc.
  const auto named = model->named_parameters();
  EXPECT_EQ(named.size(), 53u + 2 * 53u + 2u);
  for (const std::string name :
       {"conv1.weight", "bn1.bias", "layer1.0.downsample.0.weight", "layer2.0.downsample.1.weight",
        "layer3.5.conv3.weight", "layer4.2.bn3.bias", "fc.weight", "fc.bias"}) {
    EXPECT_NE(named.find(name), nullptr) << name;
  }
  EXPECT_EQ(named.find("layer1.1.downsample.0.weight"), nullptr);  // shapes already match
  EXPECT_EQ(model->named_buffers().size(), 3 * 53u);               // running mean, var, batch count
}

TEST(ResNet50, EachStageHalvesTheImageAndTheHeadGivesLogits) {
  ResNet model;
  model->eval();
  torch::NoGradGuard no_grad;
  auto x = model->Stem(torch::randn({1, 3, 64, 64}));
  EXPECT_EQ(x.sizes(), (Shape{1, 64, 16, 16}));
  const std::vector<Shape> stage_outputs = {
      {1, 256, 16, 16}, {1, 512, 8, 8}, {1, 1024, 4, 4}, {1, 2048, 2, 2}};
  for (int64_t i = 0; i < 4; ++i) {
    x = model->stage(i)->forward(x);
    EXPECT_EQ(x.sizes(), stage_outputs[i]) << "stage " << i;
  }
  EXPECT_EQ(model->Head(x).sizes(), (Shape{1, 1000}));
  EXPECT_EQ(model->forward(torch::randn({1, 3, 64, 64})).sizes(), (Shape{1, 1000}));
}

TEST(ResNet50, StridesOnTheThreeByThreeConvAsTorchvisionV15) {
  ResNet model;
  const std::vector<int64_t> blocks = {3, 4, 6, 3};
  for (int64_t i = 0; i < 4; ++i) {
    auto& stage = model->stage(i);
    ASSERT_EQ(static_cast<int64_t>(stage->size()), blocks[i]);
    const auto first = stage[0]->as<BottleneckImpl>();
    const int64_t stride = i == 0 ? 1 : 2;
    EXPECT_EQ(Stride(*first->conv1), (Shape{1, 1})) << i;
    EXPECT_EQ(Stride(*first->conv2), (Shape{stride, stride})) << i;
    ASSERT_TRUE(first->downsample) << i;
    EXPECT_EQ(Stride(*first->downsample[0]->as<torch::nn::Conv2dImpl>()), (Shape{stride, stride}))
        << i;
    EXPECT_EQ(first->out_channels(), (int64_t{64} << i) * 4);
  }
}

TEST(ResNetStage, BuildsTheModelsStageAlone) {
  ResNet model;
  for (int64_t i = 0; i < 4; ++i) {
    auto alone = ResNetStage(ResNetStageShape({}, i));
    EXPECT_EQ(CountParameters(*alone), CountParameters(*model->stage(i))) << "stage " << i;
  }
  const StageShape layer3 = ResNetStageShape({}, 2);
  EXPECT_EQ(layer3.in_channels, 512);
  EXPECT_EQ(layer3.width, 256);
  EXPECT_EQ(layer3.blocks, 6);
  EXPECT_EQ(layer3.stride, 2);
  auto stage = ResNetStage(layer3);
  stage->eval();
  torch::NoGradGuard no_grad;
  EXPECT_EQ(stage->forward(torch::randn({1, 512, 8, 8})).sizes(), (Shape{1, 1024, 4, 4}));
  EXPECT_THROW(ResNetStageShape({}, 4), std::out_of_range);
  EXPECT_THROW(ResNetStage({.in_channels = 8, .width = 8, .blocks = 0, .stride = 1}),
               std::invalid_argument);
}

TEST(SmallResNet, TrainsEveryParameter) {
  torch::manual_seed(0);
  ResNet model(kSmallResNet);
  EXPECT_EQ(CountParameters(*model), 516'058);  // as resnet.h says
  const auto input = torch::randn({4, 3, 32, 32});
  const auto logits = model->forward(input);
  EXPECT_EQ(logits.sizes(), (Shape{4, 10}));
  torch::nn::functional::cross_entropy(logits, torch::randint(10, {4}, torch::kLong)).backward();
  for (const auto& p : model->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
  }
}

TEST(SmallResNet, RunsAChannelsLastInputAsItIs) {
  torch::manual_seed(0);
  ResNet model(kSmallResNet);
  model->eval();
  torch::NoGradGuard no_grad;
  const auto input = torch::randn({2, 3, 32, 32});
  const auto expected = model->forward(input);
  const auto got = model->forward(input.contiguous(torch::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(torch::allclose(got, expected, /*rtol=*/1e-4, /*atol=*/1e-5));
}

}  // namespace
}  // namespace trickbench::workloads
