// For tests of an allocation regime: the minor page faults one call of `fn` costs, after
// calls that settle the heap.
//
//   ApplyAllocatorRegime(kFreshPages);
//   const double faults = MinorFaultsPerCall([] { torch::empty({1 << 20}).fill_(1.0f); });
//   EXPECT_GE(faults, 500);  // 4 MB of 4 KiB pages, each faulted in
//
// Why settle first: a regime that reuses pages still grows its heap over the first few
// calls (around the block's small neighbours), as the harness's warm-up does before
// anything is timed.
#pragma once

#include <functional>

#include "common/interference.h"

namespace trickbench {

inline double MinorFaultsPerCall(const std::function<void()>& fn, int settle = 30, int calls = 20) {
  for (int i = 0; i < settle; ++i) fn();
  const Interference before = SampleInterference();
  for (int i = 0; i < calls; ++i) fn();
  return static_cast<double>((SampleInterference() - before).minor_faults) / calls;
}

}  // namespace trickbench
