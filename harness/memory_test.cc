#include "harness/memory.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace trickbench {
namespace {

constexpr int64_t kMiB = 1 << 20;

TEST(CpuMemoryMeter, SeesAllocationAndFreeInItsRegion) {
  CpuMemoryMeter meter;
  {
    auto t = torch::empty({kMiB / 4}, torch::kFloat);  // 1 MiB
    EXPECT_GE(meter.live_bytes(), kMiB);
  }
  EXPECT_LT(meter.live_bytes(), 4096);
  EXPECT_GE(meter.peak_bytes(), kMiB);
  EXPECT_LT(meter.peak_bytes(), kMiB + 4096);
  EXPECT_GE(meter.allocations(), 1);
}

TEST(CpuMemoryMeter, PeakIsTheMaximumAtOnceNotTheSum) {
  CpuMemoryMeter meter;
  for (int i = 0; i < 4; ++i) auto t = torch::empty({kMiB / 4}, torch::kFloat);
  EXPECT_LT(meter.peak_bytes(), 2 * kMiB);
  auto a = torch::empty({kMiB / 4}, torch::kFloat);
  auto b = torch::empty({kMiB / 4}, torch::kFloat);
  EXPECT_GE(meter.peak_bytes(), 2 * kMiB);
}

TEST(CpuMemoryMeter, ResetPeakStartsFromLiveBytes) {
  CpuMemoryMeter meter;
  auto kept = torch::empty({kMiB / 4}, torch::kFloat);
  { auto temp = torch::empty({kMiB}, torch::kFloat); }
  meter.ResetPeak();
  EXPECT_GE(meter.peak_bytes(), kMiB);
  EXPECT_LT(meter.peak_bytes(), 2 * kMiB);
}

TEST(CpuMemoryMeter, CountsNothingOutsideItsLifetime) {
  auto before = torch::empty({kMiB / 4}, torch::kFloat);
  CpuMemoryMeter meter;
  EXPECT_EQ(meter.live_bytes(), 0);
  EXPECT_EQ(meter.peak_bytes(), 0);
}

TEST(CpuMemoryMeter, SeesIntraOpWorkerThreads) {
  at::set_num_threads(2);
  CpuMemoryMeter meter;
  std::atomic<int> allocated{0};
  at::parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      auto t = torch::empty({kMiB / 4}, torch::kFloat);
      allocated += 1;
    }
  });
  EXPECT_EQ(allocated.load(), 2);
  EXPECT_GE(meter.peak_bytes(), kMiB);
}

}  // namespace
}  // namespace trickbench
