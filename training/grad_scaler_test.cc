#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include "training/grad_scaler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace trickbench::training {
namespace {

// One Linear layer, SGD, and a fixed batch: enough for the scaler's bookkeeping.
struct Tiny {
  torch::nn::Linear model{4, 3};
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1)};
  torch::Tensor x = torch::randn({8, 4});

  torch::Tensor Loss() { return model->forward(x).pow(2).mean(); }
  void Backward(GradScaler& scaler) {
    optimizer.zero_grad();
    scaler.Scale(Loss()).backward();
  }
  std::vector<torch::Tensor> Params() {
    std::vector<torch::Tensor> out;
    for (const auto& p : model->parameters()) out.push_back(p.detach().clone());
    return out;
  }
};

bool Equal(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!torch::equal(a[i], b[i])) return false;
  }
  return true;
}

TEST(GradScaler, RejectsBadOptions) {
  EXPECT_THROW(GradScaler({.init_scale = 0}), std::invalid_argument);
  EXPECT_THROW(GradScaler({.init_scale = INFINITY}), std::invalid_argument);
  EXPECT_THROW(GradScaler({.growth_factor = 1.0}), std::invalid_argument);
  EXPECT_THROW(GradScaler({.backoff_factor = 1.0}), std::invalid_argument);
  EXPECT_THROW(GradScaler({.backoff_factor = 0.0}), std::invalid_argument);
  EXPECT_THROW(GradScaler({.growth_interval = 0}), std::invalid_argument);
  EXPECT_NO_THROW(GradScaler(GradScalerOptions{}));
}

TEST(GradScaler, ScalesTheLossAndUnscaleRecoversTheTrueGrads) {
  torch::manual_seed(0);
  Tiny t;
  t.optimizer.zero_grad();
  t.Loss().backward();
  std::vector<torch::Tensor> plain;
  for (const auto& p : t.model->parameters()) plain.push_back(p.grad().clone());

  GradScaler scaler({.init_scale = 1024});
  const torch::Tensor loss = t.Loss();
  EXPECT_TRUE(torch::equal(scaler.Scale(loss), loss * 1024));
  t.Backward(scaler);
  EXPECT_FALSE(torch::allclose(t.model->weight.grad(), plain[0]));  // still scaled
  scaler.Unscale(t.optimizer);
  std::vector<torch::Tensor> unscaled;
  for (const auto& p : t.model->parameters()) unscaled.push_back(p.grad().clone());
  // A power-of-two scale is exact in both directions.
  EXPECT_TRUE(Equal(unscaled, plain));
  EXPECT_FALSE(scaler.found_inf());
  EXPECT_EQ(scaler.used_fused_kernels(), HasFusedAmpKernels(torch::kCPU));
}

TEST(GradScaler, PlantedInfSkipsTheStepAndBacksOff) {
  for (const float bad : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
    torch::manual_seed(0);
    Tiny t;
    GradScaler scaler({.init_scale = 4096, .growth_interval = 2});
    // One clean step first, so the growth tracker has something to reset.
    t.Backward(scaler);
    EXPECT_TRUE(scaler.Step(t.optimizer));
    scaler.Update();
    EXPECT_EQ(scaler.growth_tracker(), 1);

    const auto before = t.Params();
    t.Backward(scaler);
    t.model->bias.grad()[1] = bad;
    EXPECT_FALSE(scaler.Step(t.optimizer)) << bad;
    EXPECT_TRUE(scaler.found_inf());
    EXPECT_TRUE(Equal(t.Params(), before)) << "a step ran with a non-finite grad";
    scaler.Update();
    EXPECT_EQ(scaler.scale(), 2048.0);
    EXPECT_EQ(scaler.growth_tracker(), 0);
    EXPECT_FALSE(scaler.found_inf());

    // The next clean step runs again at the backed-off scale.
    t.Backward(scaler);
    EXPECT_TRUE(scaler.Step(t.optimizer));
    EXPECT_FALSE(Equal(t.Params(), before));
    scaler.Update();
    EXPECT_EQ(scaler.scale(), 2048.0);
  }
}

TEST(GradScaler, GrowsAfterTheIntervalOfCleanSteps) {
  torch::manual_seed(0);
  Tiny t;
  GradScaler scaler({.init_scale = 8, .growth_factor = 2, .growth_interval = 3});
  const std::vector<double> expected = {8, 8, 16, 16, 16, 32};
  for (double want : expected) {
    t.Backward(scaler);
    ASSERT_TRUE(scaler.Step(t.optimizer));
    scaler.Update();
    EXPECT_EQ(scaler.scale(), want);
  }
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, NeverGrowsToInfinity) {
  torch::manual_seed(0);
  Tiny t;
  const double top = std::ldexp(1.0, 127);  // 2^128 overflows float32
  GradScaler scaler({.init_scale = top, .growth_interval = 1});
  t.optimizer.zero_grad();
  scaler.Scale(t.Loss() * 0).backward();  // zero grads: finite whatever the scale
  EXPECT_TRUE(scaler.Step(t.optimizer)) << "with grads scaled by " << scaler.scale();
  scaler.Update();
  EXPECT_EQ(scaler.scale(), top);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, MisuseIsAnError) {
  torch::manual_seed(0);
  Tiny t;
  GradScaler scaler;
  t.optimizer.zero_grad();
  t.Loss().backward();
  EXPECT_THROW(scaler.Unscale(t.optimizer), std::logic_error);  // nothing was scaled
  t.Backward(scaler);
  EXPECT_THROW(scaler.Update(), std::logic_error);  // nothing unscaled yet
  scaler.Unscale(t.optimizer);
  EXPECT_THROW(scaler.Unscale(t.optimizer), std::logic_error);  // would divide twice
  EXPECT_TRUE(scaler.Step(t.optimizer));                        // uses the earlier unscale
  scaler.Update();

  for (auto& p : t.model->parameters()) p.mutable_grad() = p.grad().to(torch::kHalf);
  EXPECT_THROW(scaler.Unscale(t.optimizer), std::invalid_argument);
}

TEST(GradScaler, DisabledIsAPassThrough) {
  torch::manual_seed(0);
  Tiny t;
  GradScaler scaler({.enabled = false});
  const torch::Tensor loss = t.Loss();
  EXPECT_TRUE(torch::equal(scaler.Scale(loss), loss));
  t.Backward(scaler);
  t.model->bias.grad()[0] = INFINITY;
  EXPECT_TRUE(scaler.Step(t.optimizer));  // no checking at all when disabled
  scaler.Update();
  EXPECT_EQ(scaler.scale(), 1.0);
}

TEST(GradScaler, FusedKernelsAndFallbackAgree) {
  if (!HasFusedAmpKernels(torch::kCPU)) {
    GTEST_SKIP() << "this LibTorch has no CPU kernels for _amp_* (1.13 has CUDA ones only)";
  }
  for (bool plant : {false, true}) {
    std::vector<double> scales;
    std::vector<std::vector<torch::Tensor>> params;
    for (auto kernels :
         {GradScalerOptions::Kernels::kAuto, GradScalerOptions::Kernels::kFallback}) {
      torch::manual_seed(0);
      Tiny t;
      GradScaler scaler({.init_scale = 64, .growth_interval = 1, .kernels = kernels});
      t.Backward(scaler);
      if (plant) t.model->weight.grad()[0][0] = INFINITY;
      scaler.Step(t.optimizer);
      scaler.Update();
      scales.push_back(scaler.scale());
      params.push_back(t.Params());
    }
    EXPECT_EQ(scales[0], scales[1]);
    EXPECT_TRUE(Equal(params[0], params[1]));
  }
}

}  // namespace
}  // namespace trickbench::training
