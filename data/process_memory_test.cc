#include "data/process_memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

namespace trickbench::data {
namespace {

TEST(ProcessMemory, PeakFollowsATouchedAllocation) {
  ASSERT_GT(CurrentRssBytes(), 0);
  if (!ResetPeakRss()) GTEST_SKIP() << "/proc/self/clear_refs not writable here";
  const int64_t before = CurrentRssBytes();
  constexpr size_t kBytes = 64 << 20;
  {
    std::unique_ptr<char[]> block(new char[kBytes]);
    std::memset(block.get(), 1, kBytes);  // touch every page so it becomes resident
    EXPECT_GE(PeakRssBytes() - before, static_cast<int64_t>(kBytes) * 9 / 10);
  }
  ASSERT_TRUE(ResetPeakRss());
  EXPECT_LT(PeakRssBytes() - CurrentRssBytes(), static_cast<int64_t>(kBytes) / 2)
      << "reset did not bring the peak down to the current RSS";
}

}  // namespace
}  // namespace trickbench::data
