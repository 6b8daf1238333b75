// Peak CPU memory of a region, as LibTorch's own allocator reports it.
//
//   trickbench::CpuMemoryMeter meter;    // starts counting on this thread
//   RunTrainingStep();                   // and in at::parallel_for workers it spawns
//   int64_t peak = meter.peak_bytes();   // max bytes live at once, from the start
//
// The meter installs a c10::MemoryReportingInfoBase as the thread's profiler debug
// info, so the CPU allocator reports every allocation and free while it lives.
// Allocations made before the meter started are not counted, nor are their frees.
// Threads that do not inherit LibTorch's thread-local state (a plain std::thread,
// a DataLoader worker) are not seen: what they allocate is missing from the figure.
// Reporting costs a mutex and a map insert per allocation, so the harness never
// meters a timed region.
#pragma once

#include <c10/util/ThreadLocalDebugInfo.h>

#include <cstdint>
#include <memory>

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

  class Reporter;  // implementation detail, in memory.cc

 private:
  std::shared_ptr<Reporter> reporter_;
  std::unique_ptr<c10::DebugInfoGuard> guard_;
};

}  // namespace trickbench
