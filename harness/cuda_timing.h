// The harness's CUDA primitives: event timing on the current stream, optional L2 flush,
// caching-allocator memory, device facts. Defined in cuda_timing_cuda.cc, which is
// compiled only in CUDA builds (Bazel --config=cuda, or CMake with a CUDA LibTorch),
// and used only from the CUDA timing backend (cuda_backend_cuda.cc, the same builds);
// everything else reaches them through harness/timing.h. The header itself needs no
// CUDA headers.
//
//   const double seconds = trickbench::cuda::TimeIterations(device.index(), /*flush_l2=*/false,
//                                                           iterations, [&] { body(trick); });
//
//   trickbench::cuda::DeviceMemoryMeter meter(device);   // resets the peak now
//   RunSteps();
//   meter.AddCounters(&counters);   // cuda_peak_allocated_bytes, ...
//
// Why events and not the wall clock: kernels run asynchronously, so a host clock
// measures launch cost unless it synchronizes, and then it also measures the sync.
// Two events recorded on the stream around the body, read after the stop event has
// completed, time what the GPU did between them. Work on other streams counts only if
// the trick joins it back to the current stream before returning (as it must anyway
// for its Result() to be ready).
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace trickbench {
namespace cuda {

// A start/stop event pair on the current CUDA stream of one device.
class IterationTimer {
 public:
  // flush_l2: before each Start(), write a device buffer twice the size of the L2
  // cache on the stream (outside the timed region), so every iteration starts cold.
  IterationTimer(int device_index, bool flush_l2);
  ~IterationTimer();
  IterationTimer(const IterationTimer&) = delete;
  IterationTimer& operator=(const IterationTimer&) = delete;

  void Start();
  // Records the stop event, waits for it, returns the seconds between the events.
  double StopSeconds();
  int64_t flush_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One sample on a CUDA device: the seconds the current stream spent on `iterations`
// runs of `body`. Without flush_l2, one event pair around them all (no per-iteration
// event overhead); with it, each iteration timed on its own after an untimed flush, and
// the times summed. *host_seconds (when given): the host's time in the calls of `body`,
// the launches, without the waits for the device.
double TimeIterations(int device_index, bool flush_l2, int64_t iterations,
                      const std::function<void()>& body, double* host_seconds = nullptr);

struct DeviceMemory {
  int64_t allocated_bytes = 0;  // live tensors now
  int64_t peak_allocated_bytes = 0;
  int64_t reserved_bytes = 0;  // held by the caching allocator now (live + cached)
  int64_t peak_reserved_bytes = 0;
};

// The CUDA caching allocator's statistics for one device (all pools).
DeviceMemory ReadDeviceMemory(int device_index);
// Starts new peaks from the current values.
void ResetPeakDeviceMemory(int device_index);

// Device memory of a region, the GPU twin of CpuMemoryMeter: resets the allocator's
// peaks when constructed. Does nothing for a non-CUDA device.
class DeviceMemoryMeter {
 public:
  explicit DeviceMemoryMeter(const torch::Device& device);
  // Adds cuda_setup_allocated_bytes (live when the meter started),
  // cuda_peak_allocated_bytes, cuda_run_peak_allocated_bytes (peak minus setup) and
  // cuda_peak_reserved_bytes.
  void AddCounters(std::map<std::string, double>* counters) const;

 private:
  int device_index_ = -1;  // -1: not a CUDA device
  int64_t setup_allocated_ = 0;
};

// Facts about one device for the result's context: cuda_device_name,
// cuda_compute_capability, cuda_sm_count, cuda_total_memory_bytes, cuda_l2_cache_bytes,
// cuda_sm_clock_max_mhz, cuda_memory_clock_max_mhz, cuda_memory_bus_width_bits,
// cuda_ecc, cuda_driver_version, cuda_runtime_version, cudnn_version.
std::vector<std::pair<std::string, std::string>> DeviceContext(int device_index);

// The device's name as CUDA reports it ("NVIDIA H200").
std::string DeviceName(int device_index);

}  // namespace cuda
}  // namespace trickbench
