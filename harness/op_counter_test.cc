#include "harness/op_counter.h"

#include <gtest/gtest.h>
#include <torch/types.h>

#include <thread>

namespace trickbench {
namespace {

int64_t Count(const OpCounter& c, const std::string& op) {
  const auto it = c.counts().find(op);
  return it == c.counts().end() ? 0 : it->second;
}

TEST(OpCounter, CountsTheOpsItsScopeDispatched) {
  const torch::Tensor x = torch::randn({16});
  torch::Tensor before = x * x;  // before the counter: not counted
  OpCounter ops;
  torch::Tensor y = at::gelu(x);
  y = y + x;
  y = y + x;
  EXPECT_EQ(Count(ops, "aten::gelu"), 1);
  EXPECT_EQ(Count(ops, "aten::add"), 2);
  EXPECT_EQ(Count(ops, "aten::mul"), 0);
}

// A scalar operand dispatches twice (mul.Scalar wraps it and calls mul.Tensor): counts
// are dispatches, not kernels, so checks compare ops present or absent, not exact counts.
TEST(OpCounter, CountsDispatchesNotKernels) {
  const torch::Tensor x = torch::randn({16});
  OpCounter ops;
  auto y = x * 2;
  EXPECT_EQ(Count(ops, "aten::mul"), 2);
}

TEST(OpCounter, StopsCountingWhenItDies) {
  const torch::Tensor x = torch::randn({16});
  { OpCounter ops; }
  OpCounter later;
  auto y = x * x;
  EXPECT_EQ(Count(later, "aten::mul"), 1);
}

TEST(OpCounter, NestedCountersCountTheirOwnScope) {
  const torch::Tensor x = torch::randn({16});
  OpCounter outer;
  auto a = x * x;
  {
    OpCounter inner;
    auto b = x * x;
    EXPECT_EQ(Count(inner, "aten::mul"), 1);
  }
  auto c = x * x;
  EXPECT_EQ(Count(outer, "aten::mul"), 3);
}

TEST(OpCounter, SeesOnlyItsOwnThread) {
  const torch::Tensor x = torch::randn({16});
  OpCounter ops;
  std::thread([&] { auto y = x * x; }).join();
  EXPECT_EQ(Count(ops, "aten::mul"), 0);
}

TEST(OpCounter, SeesTheOpsOfABackwardPass) {
  const torch::Tensor w = torch::randn({4, 4}, torch::requires_grad());
  const torch::Tensor loss = w.matmul(torch::randn({4, 1})).sum();
  OpCounter ops;
  loss.backward();
  EXPECT_GT(Count(ops, "aten::mm"), 0);
}

}  // namespace
}  // namespace trickbench
