#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include "workloads/resnet.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
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

void ExpectSameWork(const ConvWork& got, const ConvWork& want) {
  EXPECT_EQ(got.macs, want.macs);
  EXPECT_EQ(got.inputs, want.inputs);
  EXPECT_EQ(got.outputs, want.outputs);
  EXPECT_EQ(got.weights, want.weights);
}

// ConvWork measured instead of counted: every conv of `model` run, one image, on the
// tensor its forward gives it, and the classifier's weight read off the module.
ConvWork RunAndMeasure(ResNetImpl& model, const torch::Tensor& image) {
  ConvWork work;
  auto run = [&work](torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
    const torch::Tensor y = conv.forward(x);
    const int64_t weight = conv.weight.numel();
    work.macs += static_cast<double>(y.numel() * (weight / conv.weight.size(0)));
    work.inputs += static_cast<double>(x.numel());
    work.outputs += static_cast<double>(y.numel());
    work.weights += static_cast<double>(weight);
    return y;
  };
  const auto children = model.named_children();
  run(*children["conv1"]->as<torch::nn::Conv2dImpl>(), image);
  torch::Tensor x = model.Stem(image);
  for (int64_t i = 0; i < 4; ++i) {
    for (const auto& block : *model.stage(i)) {
      auto& b = *block.ptr<BottleneckImpl>();
      run(*b.conv3, run(*b.conv2, run(*b.conv1, x)));
      if (b.downsample) run(*b.downsample[0]->as<torch::nn::Conv2dImpl>(), x);
      x = b.forward(x);
    }
  }
  const double fc =
      static_cast<double>(children["fc"]->as<torch::nn::LinearImpl>()->weight.numel());
  work.macs += fc;
  work.weights += fc;
  return work;
}

TEST(ConvWork, ResNet50At224IsTorchvisionsFourGigaMultiplyAdds) {
  const ConvWork work = ResNetConvWork(ResNetSize{}, 224);
  EXPECT_NEAR(work.macs, 4.09e9, 0.005 * 4.09e9);  // torchvision's "4.09 GFLOPS"
  // The model's parameters less BatchNorm's and the classifier's bias: those with more
  // than one dimension, every conv's weight and the classifier's.
  const ResNet model;
  int64_t weights = 0, vectors = 0;
  for (const auto& p : model->parameters()) (p.dim() > 1 ? weights : vectors) += p.numel();
  EXPECT_EQ(vectors, 2 * 26'560 + 1'000);  // 53 BatchNorms' weight and bias, fc.bias
  EXPECT_EQ(work.weights, static_cast<double>(weights));
  EXPECT_NEAR(work.weights, 25.5e6, 0.005 * 25.5e6);
}

TEST(ConvWork, CountsWhatTheModulesRunAtSidesThatDoNotHalveEvenly) {
  for (const auto& [size, image] :
       {std::pair{ResNetSize{}, int64_t{50}}, std::pair{kSmallResNet, int64_t{37}}}) {
    torch::manual_seed(0);
    ResNet model(size);
    model->eval();
    torch::NoGradGuard no_grad;
    SCOPED_TRACE("base width " + std::to_string(size.base_width) + ", image " +
                 std::to_string(image));
    ExpectSameWork(ResNetConvWork(size, image),
                   RunAndMeasure(*model, torch::randn({1, size.in_channels, image, image})));
  }
}

TEST(StageConvWork, TheStagesStemAndClassifierMakeUpTheNetwork) {
  const ResNetSize size;
  ConvWork sum;
  EXPECT_EQ(sum.AddConv(3, 64, 7, 224, 2), 112);  // the stem's conv, max-pooled to 56
  const int64_t sides[] = {56, 56, 28, 14};       // each stage's input
  for (int64_t i = 0; i < 4; ++i) sum += StageConvWork(ResNetStageShape(size, i), sides[i]);
  sum.macs += 2048.0 * 1000;  // the classifier
  sum.weights += 2048.0 * 1000;
  ExpectSameWork(ResNetConvWork(size, 224), sum);
}

TEST(StageConvWork, AStridedStageWorksAtHalfItsInputsSideAfterTheFirstThreeByThree) {
  // layer2 of ResNet-50 on 56x56: 256 channels in, 128 wide, 512 out, 4 blocks.
  const ConvWork work = StageConvWork(ResNetStageShape(ResNetSize{}, 1), 56);
  const double big = 56 * 56, small = 28 * 28;
  // The first block: conv1 at 56x56; conv2 (stride 2), conv3 and the downsample at 28x28.
  const double first_macs =
      256 * 128 * big + 128 * 128 * 9 * small + 128 * 512 * small + 256 * 512 * small;
  const double first_outputs = 128 * big + (128 + 512 + 512) * small;
  const double first_inputs = 256 * big + 128 * big + 128 * small + 256 * big;
  // Three more at 28x28, 512 -> 128 -> 128 -> 512.
  const double block_macs = (512 * 128 + 128 * 128 * 9 + 128 * 512) * small;
  EXPECT_EQ(work.macs, first_macs + 3 * block_macs);
  EXPECT_EQ(work.outputs, first_outputs + 3 * (128 + 128 + 512) * small);
  EXPECT_EQ(work.inputs, first_inputs + 3 * (512 + 128 + 128) * small);
}

TEST(StageConvWork, EachFurtherBlockAddsOneBottleneckWithoutDownsampling) {
  StageShape layer1 = ResNetStageShape(ResNetSize{}, 0);  // 64 -> 64 -> 256, stride 1
  const double pixels = 56 * 56, weights = 256 * 64 + 64 * 64 * 9 + 64 * 256;
  const ConvWork plain{.macs = weights * pixels,
                       .inputs = (256 + 64 + 64) * pixels,
                       .outputs = (64 + 64 + 256) * pixels,
                       .weights = weights};
  std::vector<ConvWork> by_blocks;
  for (int64_t blocks = 0; blocks <= 3; ++blocks) {
    layer1.blocks = blocks;
    by_blocks.push_back(StageConvWork(layer1, 56));
  }
  ExpectSameWork(by_blocks[0], ConvWork{});
  // The first block widens 64 channels to 256 through its downsample.
  EXPECT_EQ(by_blocks[1].weights, 64 * 64 + 64 * 64 * 9 + 64 * 256 + 64 * 256);
  for (size_t n = 2; n < by_blocks.size(); ++n) {
    ConvWork expected = by_blocks[n - 1];
    expected += plain;
    SCOPED_TRACE(n);
    ExpectSameWork(by_blocks[n], expected);
  }
  layer1.blocks = -1;
  EXPECT_THROW(StageConvWork(layer1, 56), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench::workloads
