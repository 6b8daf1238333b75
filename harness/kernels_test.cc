#include <torch/utils.h>

#include "harness/kernels.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace trickbench::kernels {
namespace {

TEST(Kernels, MatmulFlopCountsMultiplyAndAdd) {
  EXPECT_EQ(MatmulFlop(2, 3, 4), 48);
  EXPECT_EQ(MatmulFlop(0, 3, 4), 0);
  EXPECT_THROW(MatmulFlop(-1, 3, 4), std::invalid_argument);
}

TEST(Kernels, Conv2dFlopDividesByGroups) {
  // Dense 64->64 3x3 on 8x8 output vs depthwise: 64x fewer FLOPs.
  const int64_t dense = Conv2dFlop(1, 64, 8, 8, 64, 3, 3);
  const int64_t depthwise = Conv2dFlop(1, 64, 8, 8, 1, 3, 3);
  EXPECT_EQ(dense, 2LL * 64 * 8 * 8 * 64 * 9);
  EXPECT_EQ(dense / depthwise, 64);
  EXPECT_THROW(Conv2dFlop(1, 64, 8, 8, 1, -3, 3), std::invalid_argument);
}

TEST(Kernels, BytesCountsEachTensorOnce) {
  EXPECT_EQ(Bytes({torch::zeros({10}), torch::zeros({3}, torch::kBFloat16), torch::Tensor()}),
            10 * 4 + 3 * 2);
  EXPECT_EQ(Bytes({}), 0);
}

TEST(Kernels, MedianSecondsPerRunMeasuresTheCall) {
  int calls = 0;
  const double s = MedianSecondsPerRun(
      [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      },
      torch::kCPU, /*min_seconds=*/0.0, /*min_runs=*/5);
  EXPECT_EQ(calls, 6);  // one untimed + five timed
  EXPECT_GE(s, 0.002);
  EXPECT_LT(s, 0.2);
  EXPECT_THROW(MedianSecondsPerRun([] {}, torch::kCPU, 0.0, 0), std::invalid_argument);
}

TEST(Kernels, RateCountersDivideByTime) {
  const auto c = RateCounters(1e9, 4e8, 0.5, torch::kCPU, torch::kFloat);
  EXPECT_DOUBLE_EQ(c.at("achieved_flop_per_s"), 2e9);
  EXPECT_DOUBLE_EQ(c.at("achieved_bytes_per_s"), 8e8);
  EXPECT_DOUBLE_EQ(c.at("flop_per_byte"), 2.5);
  EXPECT_DOUBLE_EQ(c.at("flop_per_run"), 1e9);
  // No peak is claimed for a CPU.
  EXPECT_EQ(c.count("fraction_of_peak"), 0u);
  EXPECT_FALSE(PeakFlopPerSecond(torch::kCPU, torch::kFloat).has_value());
  EXPECT_THROW(RateCounters(1, 1, 0, torch::kCPU, torch::kFloat), std::invalid_argument);
  EXPECT_THROW(RateCounters(-1, 1, 1, torch::kCPU, torch::kFloat), std::invalid_argument);
}

TEST(Kernels, LowPrecisionFloatPerDevice) {
  EXPECT_EQ(LowPrecisionFloat(torch::kCPU), torch::kBFloat16);
  EXPECT_EQ(LowPrecisionFloat(torch::Device(torch::kCUDA, 0)), torch::kHalf);
}

TEST(Kernels, IntegerValuedMatmulIsOrderIndependent) {
  torch::manual_seed(0);
  const auto a = IntegerValued({16, 4095}, torch::kBFloat16, torch::kCPU);
  const auto b = IntegerValued({4095, 24}, torch::kBFloat16, torch::kCPU);
  EXPECT_EQ(a.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(a, a.round()));
  EXPECT_LE(a.abs().max().item<float>(), 2);
  EXPECT_GE(a.abs().max().item<float>(), 2);  // the range is really used
  // Padding k with zeros changes the kernel's blocking, not the exact sum.
  const auto padded = ZeroPad(a, 1, 4096).mm(ZeroPad(b, 0, 4096));
  EXPECT_TRUE(torch::equal(a.mm(b), padded));
  // ... which a float operand would not guarantee; the exact reference is double.
  const auto exact = a.to(torch::kDouble).mm(b.to(torch::kDouble));
  EXPECT_TRUE(
      torch::equal(a.mm(b).to(torch::kDouble), exact.to(torch::kBFloat16).to(torch::kDouble)));
  EXPECT_THROW(IntegerValued({2}, torch::kFloat, torch::kCPU, 0), std::invalid_argument);
}

TEST(Kernels, RoundUpToMultiple) {
  EXPECT_EQ(RoundUp(33708, 8), 33712);
  EXPECT_EQ(RoundUp(4084, 8), 4088);
  EXPECT_EQ(RoundUp(4095, 8), 4096);
  EXPECT_EQ(RoundUp(4096, 8), 4096);
  EXPECT_EQ(RoundUp(0, 8), 0);
  EXPECT_THROW(RoundUp(8, 0), std::invalid_argument);
  EXPECT_THROW(RoundUp(-1, 8), std::invalid_argument);
}

TEST(Kernels, ZeroPadKeepsValuesAndZeroesTheRest) {
  const auto t = torch::arange(6, torch::kFloat).reshape({2, 3});
  const auto p = ZeroPad(t, 1, 5);
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{2, 5}));
  EXPECT_TRUE(torch::equal(p.narrow(1, 0, 3), t));
  EXPECT_EQ(p.narrow(1, 3, 2).abs().sum().item<float>(), 0);
  EXPECT_TRUE(torch::equal(ZeroPad(t, -2, 2), t));
  EXPECT_THROW(ZeroPad(t, 1, 2), std::invalid_argument);
  EXPECT_THROW(ZeroPad(t, 2, 4), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench::kernels
