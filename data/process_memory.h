// Peak resident memory of the whole process, for what LibTorch's allocator reporter
// cannot see: DataLoader worker threads (they do not inherit its thread-local state)
// and malloc's per-thread arenas.
//
//   const int64_t before = CurrentRssBytes();
//   bool reset = ResetPeakRss();          // false when the kernel refuses
//   RunEpoch(dataset, {.workers = 4}, consume);
//   const int64_t grew = PeakRssBytes() - before;   // meaningful only if reset
//
// RSS counts pages, not tensors: memory malloc keeps cached after a free still counts.
#pragma once

#include <cstdint>

namespace trickbench::data {

int64_t CurrentRssBytes();  // VmRSS; -1 when /proc is unavailable
int64_t PeakRssBytes();     // VmHWM since the start or the last ResetPeakRss; -1 likewise
// Writes 5 to /proc/self/clear_refs (Linux >= 4.0). False when that is not allowed.
bool ResetPeakRss();

}  // namespace trickbench::data
