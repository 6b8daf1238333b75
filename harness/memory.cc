#include "harness/memory.h"

#include <c10/core/Allocator.h>

#include <atomic>
#include <type_traits>

namespace trickbench {
namespace {

// LibTorch 1.x reports totals as int64_t, 2.x as size_t: take whatever this build's
// pure virtual declares so one override compiles against both.
template <typename F>
struct TotalArg;
template <typename C, typename R, typename P, typename A, typename T, typename V, typename D>
struct TotalArg<R (C::*)(P, A, T, V, D)> {
  using type = T;
};
using Total = TotalArg<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::type;

}  // namespace

class CpuMemoryMeter::Reporter : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void* /*ptr*/, int64_t alloc_size, Total /*total_allocated*/,
                         Total /*total_reserved*/, c10::Device device) override {
    if (device.type() != c10::DeviceType::CPU) return;
    if (alloc_size > 0) allocations_.fetch_add(1, std::memory_order_relaxed);
    const int64_t now = live_.fetch_add(alloc_size, std::memory_order_relaxed) + alloc_size;
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  bool memoryProfilingEnabled() const override { return true; }

  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocations_{0};
};

CpuMemoryMeter::CpuMemoryMeter()
    : reporter_(std::make_shared<Reporter>()),
      guard_(std::make_unique<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE, reporter_)) {}

CpuMemoryMeter::~CpuMemoryMeter() = default;

int64_t CpuMemoryMeter::live_bytes() const { return reporter_->live_.load(); }
int64_t CpuMemoryMeter::peak_bytes() const { return reporter_->peak_.load(); }
int64_t CpuMemoryMeter::allocations() const { return reporter_->allocations_.load(); }
void CpuMemoryMeter::ResetPeak() { reporter_->peak_.store(reporter_->live_.load()); }

}  // namespace trickbench
