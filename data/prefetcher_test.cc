#include "data/prefetcher.h"

#include <gtest/gtest.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <atomic>
#include <chrono>

namespace trickbench::data {
namespace {

TEST(Prefetcher, DeliversEverythingInOrderWithinCapacity) {
  int next = 0;
  Prefetcher<int> p(
      [&]() -> std::optional<int> {
        if (next == 100) return std::nullopt;
        return next++;
      },
      3);
  for (int i = 0; i < 100; ++i) {
    std::optional<int> v = p.Next();
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, i);
  }
  EXPECT_FALSE(p.Next().has_value());
  EXPECT_FALSE(p.Next().has_value());
  EXPECT_LE(p.max_queued(), 3u);
}

TEST(Prefetcher, ProducerStaysBoundedAhead) {
  std::atomic<int> produced{0};
  Prefetcher<int> p([&]() -> std::optional<int> { return produced++; }, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Capacity 2 queued, plus one item made and blocked in Push.
  EXPECT_LE(produced.load(), 3);
  EXPECT_EQ(*p.Next(), 0);
}

TEST(Prefetcher, EarlyStopOfAnEndlessProducerReturns) {
  std::atomic<int> produced{0};
  {
    Prefetcher<std::vector<float>> p(
        [&]() -> std::optional<std::vector<float>> {
          ++produced;
          return std::vector<float>(1000, 1.0f);
        },
        2);
    EXPECT_EQ(p.Next()->size(), 1000u);
    EXPECT_TRUE(p.Next().has_value());
  }  // destructor: wakes the producer blocked on the full queue and joins it
  const int after = produced.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(produced.load(), after) << "the producer kept running after shutdown";
}

TEST(Prefetcher, StopThenNextEnds) {
  Prefetcher<int> p([]() -> std::optional<int> { return 1; }, 1);
  p.Stop();
  EXPECT_FALSE(p.Next().has_value());
  p.Stop();  // idempotent
}

TEST(Prefetcher, ProducerErrorArrivesAfterTheItemsBeforeIt) {
  int next = 0;
  Prefetcher<int> p(
      [&]() -> std::optional<int> {
        if (next == 3) throw std::runtime_error("cannot read sample_3.jpg");
        return next++;
      },
      8);
  EXPECT_EQ(*p.Next(), 0);
  EXPECT_EQ(*p.Next(), 1);
  EXPECT_EQ(*p.Next(), 2);
  try {
    p.Next();
    FAIL() << "the producer's error was lost";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot read sample_3.jpg");
  }
}

TEST(Prefetcher, ProducerSeesTheConsumersGradMode) {
  torch::NoGradGuard no_grad;
  Prefetcher<bool> p(
      [n = 0]() mutable -> std::optional<bool> {
        if (n++) return std::nullopt;
        return torch::GradMode::is_enabled();
      },
      1);
  EXPECT_FALSE(*p.Next());
}

TEST(BoundedQueue, ZeroCapacityIsRefused) {
  EXPECT_THROW(BoundedQueue<int>(0), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench::data
