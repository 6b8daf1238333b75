#include "common/interference.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace trickbench {
namespace {

TEST(Interference, CountsTheFaultsOfFreshPages) {
  constexpr size_t kBytes = 64 << 20;  // 16384 pages of 4 KiB
  const Interference before = SampleInterference();
  char* p = static_cast<char*>(std::malloc(kBytes));  // a fresh mapping: untouched
  ASSERT_NE(p, nullptr);
  for (size_t i = 0; i < kBytes; i += 4096) p[i] = 1;
  const Interference d = SampleInterference() - before;
  std::free(p);
  // Transparent huge pages can map 2 MiB at a time; at least 32 faults either way.
  EXPECT_GE(d.minor_faults, 32);
}

TEST(Interference, SeesOtherThreadsAndSleeps) {
  const Interference before = SampleInterference();
  std::thread t([] {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    volatile double x = 0;
    while (std::chrono::steady_clock::now() < end) x = x + 1;
  });
  t.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const Interference d = SampleInterference() - before;
  EXPECT_GE(d.user_seconds + d.system_seconds, 0.02);  // the worker's CPU time counts
  EXPECT_GE(d.voluntary_switches, 1);                  // join and sleep wait
  EXPECT_GE(d.steal_seconds, 0);
}

TEST(Interference, MachineLoadIsRead) {
  const MachineLoad m = SampleMachineLoad();
  EXPECT_GE(m.cpus, 1);
  EXPECT_GE(m.load_1min, 0);
}

}  // namespace
}  // namespace trickbench
