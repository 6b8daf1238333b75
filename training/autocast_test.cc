#include <torch/nn/modules/linear.h>

#include "training/autocast.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "third_party/libtorch/compat.h"

namespace trickbench::training {
namespace {

TEST(AutocastGuard, EnablesForTheScopeAndRestores) {
  const AutocastState before = CurrentAutocastState();
  ASSERT_FALSE(before.cpu_enabled);
  torch::nn::Linear linear(8, 4);
  const torch::Tensor x = torch::randn({2, 8});
  {
    AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
    EXPECT_TRUE(AutocastEnabled(torch::kCPU));
    EXPECT_EQ(AutocastDtype(torch::kCPU), torch::kBFloat16);
    EXPECT_EQ(linear->forward(x).scalar_type(), torch::kBFloat16);
    EXPECT_FALSE(AutocastEnabled(torch::kCUDA));  // only the asked device
  }
  EXPECT_EQ(CurrentAutocastState(), before);
  EXPECT_EQ(linear->forward(x).scalar_type(), torch::kFloat);
}

TEST(AutocastGuard, NestsAndDisablesInside) {
  torch::nn::Linear linear(8, 4);
  const torch::Tensor x = torch::randn({2, 8});
  {
    AutocastGuard outer(torch::kCPU);
    {
      AutocastGuard fp32_island(torch::kCPU, std::nullopt, /*enabled=*/false);
      EXPECT_EQ(linear->forward(x).scalar_type(), torch::kFloat);
    }
    EXPECT_TRUE(AutocastEnabled(torch::kCPU));
    EXPECT_EQ(linear->forward(x).scalar_type(), torch::kBFloat16);
  }
  EXPECT_FALSE(AutocastEnabled(torch::kCPU));
  // Every guard gave its nesting level back: the next increment is the first.
  EXPECT_EQ(at::autocast::increment_nesting(), 1);
  EXPECT_EQ(at::autocast::decrement_nesting(), 0);
}

TEST(AutocastGuard, OutermostExitClearsTheCastCache) {
  // Autocast caches the bf16 copy of a float leaf that requires grad (a weight) for
  // the region; it must not outlive the region.
  const torch::Tensor weight = torch::randn({4, 4}, torch::requires_grad());
  c10::weak_intrusive_ptr<c10::TensorImpl> cached{c10::intrusive_ptr<c10::TensorImpl>()};
  {
    AutocastGuard outer(torch::kCPU);
    {
      AutocastGuard inner(torch::kCPU);
      torch::Tensor a = at::autocast::cached_cast(at::kBFloat16, weight, c10::DeviceType::CPU);
      torch::Tensor b = at::autocast::cached_cast(at::kBFloat16, weight, c10::DeviceType::CPU);
      ASSERT_EQ(a.data_ptr(), b.data_ptr()) << "the cast was not cached";
      cached = c10::weak_intrusive_ptr<c10::TensorImpl>(a.getIntrusivePtr());
    }
    EXPECT_FALSE(cached.expired()) << "an inner exit must keep the outer region's cache";
  }
  EXPECT_TRUE(cached.expired()) << "the cached cast outlived the autocast region";
}

TEST(AutocastGuard, RestoresASnapshotOfBothDevices) {
  AutocastState state;
  {
    AutocastGuard autocast(torch::kCPU);
    state = CurrentAutocastState();
  }
  ASSERT_TRUE(state.cpu_enabled);
  {
    AutocastGuard restore(state);
    EXPECT_EQ(CurrentAutocastState(), state);
  }
  EXPECT_FALSE(AutocastEnabled(torch::kCPU));
}

TEST(AutocastGuard, RejectsBadInputAndChangesNothing) {
  const AutocastState before = CurrentAutocastState();
  EXPECT_THROW(AutocastGuard(torch::kCPU, torch::kFloat), std::invalid_argument);
  EXPECT_THROW(AutocastGuard(torch::kCUDA, torch::kInt), std::invalid_argument);
  EXPECT_THROW(AutocastGuard(torch::kMeta), std::invalid_argument);
  EXPECT_THROW(AutocastEnabled(torch::kMeta), std::invalid_argument);
  if (torch_compat::kCpuAutocastHasHalf) {
    {
      AutocastGuard half(torch::kCPU, torch::kHalf);
      EXPECT_EQ(AutocastDtype(torch::kCPU), torch::kHalf);
    }
  } else {
    EXPECT_THROW(AutocastGuard(torch::kCPU, torch::kHalf), std::invalid_argument);
  }
  EXPECT_EQ(CurrentAutocastState(), before);
  // CUDA autocast's switches are thread-local flags: usable without a GPU.
  {
    AutocastGuard cuda(torch::kCUDA, torch::kBFloat16);
    EXPECT_TRUE(AutocastEnabled(torch::kCUDA));
  }
  EXPECT_EQ(CurrentAutocastState(), before);
}

}  // namespace
}  // namespace trickbench::training
