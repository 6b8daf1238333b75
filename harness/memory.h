// Peak CPU memory of a region: the bytes LibTorch's CPU allocator hands out, in every
// thread of the process.
//
//   trickbench::CpuMemoryMeter meter;    // starts counting, process-wide
//   RunTrainingStep();                   // any thread: callers, at::parallel_for workers,
//                                        // plain std::threads, DataLoader workers
//   int64_t peak = meter.peak_bytes();   // max bytes live at once, from the start
//
// What it sees: every allocation made through c10::GetCPUAllocator() (at::empty and
// everything built on it) while the meter lives, and the later free of each of those,
// whichever thread makes them. The first meter installs a counting wrapper around the
// CPU allocator that was current (c10::SetCPUAllocator at a priority above the default)
// and it stays installed: live tensors keep a pointer to the allocator that made them.
// Process-wide because a thread-local hook (a c10::MemoryReportingInfoBase as the
// thread's debug info, what this meter used before) misses every thread that does not
// inherit LibTorch's thread-local state, and data loaders and hand-made pools are the
// threads a memory claim is often about.
//
// What it does not see: allocations made before the meter started (their frees do not
// count either, so live_bytes() never goes below what the region itself allocated and
// freed); memory that does not come from LibTorch's CPU allocator (oneDNN and BLAS
// scratch space, std::vector, pinned host memory, CUDA); and the growth of a storage
// created before the first meter installed the wrapper (a resize_() goes to the
// storage's own allocator).
//
// What it costs: while no meter lives, one atomic load per CPU allocation. While one
// lives, a mutex-guarded hash-map insert per allocation and erase per free (the size
// and the original deleter of each block, looked up by the free), so the harness never
// meters a timed region.
//
// One meter at a time: the counters are the process's, so constructing a second
// meter while one lives throws std::logic_error.
#pragma once

#include <cstdint>

namespace trickbench {

class CpuMemoryMeter {
 public:
  CpuMemoryMeter();
  ~CpuMemoryMeter();
  CpuMemoryMeter(const CpuMemoryMeter&) = delete;
  CpuMemoryMeter& operator=(const CpuMemoryMeter&) = delete;

  int64_t live_bytes() const;   // allocated minus freed since the start
  int64_t peak_bytes() const;   // max of live_bytes() so far
  int64_t allocations() const;  // how many allocations were seen
  // Starts a new peak from the current live bytes (e.g. after SetUp).
  void ResetPeak();
};

}  // namespace trickbench
