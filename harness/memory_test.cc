#include "harness/memory.h"

#include <ATen/Parallel.h>
#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>
#include <torch/types.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

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

TEST(CpuMemoryMeter, SeesAPlainThread) {
  CpuMemoryMeter meter;
  torch::Tensor kept;
  // A std::thread inherits none of LibTorch's thread-local state: only a process-wide
  // meter sees what it allocates.
  std::thread([&] {
    { auto temp = torch::empty({kMiB / 2}, torch::kFloat); }  // 2 MiB, freed here
    kept = torch::empty({kMiB / 4}, torch::kFloat);           // 1 MiB, outlives it
  }).join();
  EXPECT_EQ(meter.peak_bytes(), 2 * kMiB);
  EXPECT_EQ(meter.live_bytes(), kMiB);
  EXPECT_EQ(meter.allocations(), 2);
  kept = torch::Tensor();
  EXPECT_EQ(meter.live_bytes(), 0);
}

TEST(CpuMemoryMeter, PeakIsExact) {
  CpuMemoryMeter meter;
  auto a = torch::empty({kMiB / 4}, torch::kFloat);  // 1 MiB live
  auto b = torch::empty({kMiB / 2}, torch::kFloat);  // 3 MiB live
  a = torch::Tensor();                               // 2 MiB live
  auto c = torch::empty({kMiB / 8}, torch::kFloat);  // 2.5 MiB live
  EXPECT_EQ(meter.peak_bytes(), 3 * kMiB);
  EXPECT_EQ(meter.live_bytes(), 2 * kMiB + kMiB / 2);
  meter.ResetPeak();
  EXPECT_EQ(meter.peak_bytes(), 2 * kMiB + kMiB / 2);
}

TEST(CpuMemoryMeter, PeakOfThreadsHoldingAtOnceIsTheirSum) {
  CpuMemoryMeter meter;
  std::mutex m;
  std::condition_variable cv;
  int holding = 0;
  auto hold = [&] {
    auto t = torch::empty({kMiB / 4}, torch::kFloat);
    std::unique_lock<std::mutex> lock(m);
    ++holding;
    cv.notify_all();
    cv.wait(lock, [&] { return holding == 2; });  // both blocks live before either frees
  };
  std::thread t1(hold), t2(hold);
  t1.join();
  t2.join();
  EXPECT_EQ(meter.peak_bytes(), 2 * kMiB);
  EXPECT_EQ(meter.live_bytes(), 0);
}

TEST(CpuMemoryMeter, FreesOfEarlierTensorsDoNotCount) {
  auto before_any = torch::empty({kMiB / 4}, torch::kFloat);
  torch::Tensor from_earlier_meter;
  {
    CpuMemoryMeter earlier;
    from_earlier_meter = torch::empty({kMiB / 4}, torch::kFloat);
  }
  CpuMemoryMeter meter;
  auto mine = torch::empty({kMiB / 8}, torch::kFloat);
  before_any = torch::Tensor();
  std::thread([&] { from_earlier_meter = torch::Tensor(); }).join();
  EXPECT_EQ(meter.live_bytes(), kMiB / 2);
  EXPECT_EQ(meter.peak_bytes(), kMiB / 2);
  mine = torch::Tensor();
  EXPECT_EQ(meter.live_bytes(), 0);
}

TEST(CpuMemoryMeter, TensorsOutliveTheMeter) {
  torch::Tensor kept;
  {
    CpuMemoryMeter meter;
    kept = torch::ones({1024}, torch::kFloat);
  }
  EXPECT_EQ(kept.sum().item<float>(), 1024.0f);
  kept = torch::Tensor();  // freed through the wrapper's deleter, with no meter
}

TEST(CpuMemoryMeter, RawAllocationsStillWork) {
  c10::Allocator* cpu = c10::GetCPUAllocator();
  void* outside = nullptr;
  {
    CpuMemoryMeter meter;
    void* inside = cpu->raw_allocate(4096);
    EXPECT_EQ(meter.live_bytes(), 4096);
    cpu->raw_deallocate(inside);
    EXPECT_EQ(meter.live_bytes(), 0);
  }
  outside = cpu->raw_allocate(4096);  // unmetered, freed through the same raw deleter
  cpu->raw_deallocate(outside);
}

TEST(CpuMemoryMeter, OneAtATime) {
  CpuMemoryMeter meter;
  EXPECT_THROW(CpuMemoryMeter second, std::logic_error);
}

}  // namespace
}  // namespace trickbench
