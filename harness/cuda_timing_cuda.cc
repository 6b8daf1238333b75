// CUDA builds only (see cuda_timing.h). Uses the CUDA runtime's C API for events,
// attributes and the flush buffer (stable across CUDA 11-13), and c10's CUDA stream and
// caching allocator (the names used here exist from LibTorch 1.13 to 2.x).
#include "harness/cuda_timing.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "harness/gpu_info.h"

namespace trickbench {
namespace cuda {
namespace {

void Check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
  }
}

c10::DeviceIndex Index(int device_index) { return static_cast<c10::DeviceIndex>(device_index); }

int Attribute(cudaDeviceAttr attr, int device_index) {
  int value = 0;
  Check(cudaDeviceGetAttribute(&value, attr, device_index), "cudaDeviceGetAttribute");
  return value;
}

// c10's allocator statistics come per pool; index 0 is StatType::AGGREGATE (all pools)
// in every LibTorch version, whose enum moved namespace in 2.x.
constexpr size_t kAggregate = 0;

}  // namespace

struct IterationTimer::Impl {
  int device = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  void* flush_buffer = nullptr;
  size_t flush_bytes = 0;
  int flush_value = 0;
};

IterationTimer::IterationTimer(int device_index, bool flush_l2) : impl_(std::make_unique<Impl>()) {
  c10::cuda::CUDAGuard guard(Index(device_index));
  impl_->device = device_index;
  impl_->stream = c10::cuda::getCurrentCUDAStream(Index(device_index)).stream();
  Check(cudaEventCreate(&impl_->start), "cudaEventCreate");
  Check(cudaEventCreate(&impl_->stop), "cudaEventCreate");
  if (flush_l2) {
    // Twice the L2 so that nothing measured before survives; at least 32 MiB for a
    // device that reports no L2. Allocated outside LibTorch's caching allocator so
    // that it never shows in the memory figures.
    const size_t l2 =
        static_cast<size_t>(std::max(0, Attribute(cudaDevAttrL2CacheSize, device_index)));
    impl_->flush_bytes = std::max<size_t>(2 * l2, size_t{32} << 20);
    Check(cudaMalloc(&impl_->flush_buffer, impl_->flush_bytes), "cudaMalloc (L2 flush buffer)");
  }
}

IterationTimer::~IterationTimer() {
  // Destructors must not throw: errors here are left for the next CUDA call to report.
  c10::cuda::CUDAGuard guard(Index(impl_->device));
  if (impl_->flush_buffer) cudaFree(impl_->flush_buffer);
  if (impl_->start) cudaEventDestroy(impl_->start);
  if (impl_->stop) cudaEventDestroy(impl_->stop);
}

void IterationTimer::Start() {
  if (impl_->flush_buffer) {
    // A new value each time, so no layer can skip the write as redundant.
    impl_->flush_value = (impl_->flush_value + 1) & 0xff;
    Check(
        cudaMemsetAsync(impl_->flush_buffer, impl_->flush_value, impl_->flush_bytes, impl_->stream),
        "cudaMemsetAsync (L2 flush)");
  }
  Check(cudaEventRecord(impl_->start, impl_->stream), "cudaEventRecord (start)");
}

double IterationTimer::StopSeconds() {
  Check(cudaEventRecord(impl_->stop, impl_->stream), "cudaEventRecord (stop)");
  Check(cudaEventSynchronize(impl_->stop),
        "cudaEventSynchronize (an error here usually comes from the trick's kernels)");
  float ms = 0;
  Check(cudaEventElapsedTime(&ms, impl_->start, impl_->stop), "cudaEventElapsedTime");
  return static_cast<double>(ms) / 1e3;
}

int64_t IterationTimer::flush_bytes() const { return static_cast<int64_t>(impl_->flush_bytes); }

double TimeIterations(int device_index, bool flush_l2, int64_t iterations,
                      const std::function<void()>& body, double* host_seconds) {
  using HostClock = std::chrono::steady_clock;
  IterationTimer timer(device_index, flush_l2);
  // Whatever the warm-up or the last sample left queued is not this sample's work.
  Check(cudaStreamSynchronize(c10::cuda::getCurrentCUDAStream(Index(device_index)).stream()),
        "cudaStreamSynchronize (before a sample)");
  double host = 0;
  double seconds = 0;
  if (!flush_l2) {
    timer.Start();
    const auto start = HostClock::now();
    for (int64_t i = 0; i < iterations; ++i) body();
    host = std::chrono::duration<double>(HostClock::now() - start).count();
    seconds = timer.StopSeconds();
  } else {
    for (int64_t i = 0; i < iterations; ++i) {
      timer.Start();
      const auto start = HostClock::now();
      body();
      host += std::chrono::duration<double>(HostClock::now() - start).count();
      seconds += timer.StopSeconds();
    }
  }
  if (host_seconds) *host_seconds = host;
  return seconds;
}

DeviceMemory ReadDeviceMemory(int device_index) {
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(Index(device_index));
  DeviceMemory m;
  m.allocated_bytes = stats.allocated_bytes[kAggregate].current;
  m.peak_allocated_bytes = stats.allocated_bytes[kAggregate].peak;
  m.reserved_bytes = stats.reserved_bytes[kAggregate].current;
  m.peak_reserved_bytes = stats.reserved_bytes[kAggregate].peak;
  return m;
}

void ResetPeakDeviceMemory(int device_index) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(Index(device_index));
}

DeviceMemoryMeter::DeviceMemoryMeter(const torch::Device& device) {
  if (!device.is_cuda()) return;
  device_index_ = device.has_index() ? device.index() : 0;
  ResetPeakDeviceMemory(device_index_);
  setup_allocated_ = ReadDeviceMemory(device_index_).allocated_bytes;
}

void DeviceMemoryMeter::AddCounters(std::map<std::string, double>* counters) const {
  if (device_index_ < 0) return;
  const DeviceMemory m = ReadDeviceMemory(device_index_);
  (*counters)["cuda_setup_allocated_bytes"] = static_cast<double>(setup_allocated_);
  (*counters)["cuda_peak_allocated_bytes"] = static_cast<double>(m.peak_allocated_bytes);
  (*counters)["cuda_run_peak_allocated_bytes"] =
      static_cast<double>(m.peak_allocated_bytes - setup_allocated_);
  (*counters)["cuda_peak_reserved_bytes"] = static_cast<double>(m.peak_reserved_bytes);
}

std::string DeviceName(int device_index) {
  cudaDeviceProp props{};
  Check(cudaGetDeviceProperties(&props, device_index), "cudaGetDeviceProperties");
  return props.name;
}

std::vector<std::pair<std::string, std::string>> DeviceContext(int device_index) {
  std::vector<std::pair<std::string, std::string>> c;
  auto add = [&](const std::string& key, const std::string& value) { c.emplace_back(key, value); };
  cudaDeviceProp props{};
  Check(cudaGetDeviceProperties(&props, device_index), "cudaGetDeviceProperties");
  add("cuda_device_name", props.name);
  add("cuda_compute_capability",
      std::to_string(Attribute(cudaDevAttrComputeCapabilityMajor, device_index)) + "." +
          std::to_string(Attribute(cudaDevAttrComputeCapabilityMinor, device_index)));
  add("cuda_sm_count", std::to_string(Attribute(cudaDevAttrMultiProcessorCount, device_index)));
  add("cuda_total_memory_bytes", std::to_string(props.totalGlobalMem));
  add("cuda_l2_cache_bytes", std::to_string(Attribute(cudaDevAttrL2CacheSize, device_index)));
  // Attributes report kHz. These are the maximum clocks; the clocks a run actually got
  // (power or thermal throttling) need NVML or nvidia-smi, which tools/device_check.sh records.
  add("cuda_sm_clock_max_mhz",
      std::to_string(Attribute(cudaDevAttrClockRate, device_index) / 1000));
  add("cuda_memory_clock_max_mhz",
      std::to_string(Attribute(cudaDevAttrMemoryClockRate, device_index) / 1000));
  add("cuda_memory_bus_width_bits",
      std::to_string(Attribute(cudaDevAttrGlobalMemoryBusWidth, device_index)));
  add("cuda_ecc", Attribute(cudaDevAttrEccEnabled, device_index) ? "on" : "off");
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  add("cuda_driver_version", CudaVersionString(driver));
  add("cuda_runtime_version", CudaVersionString(runtime));
  std::string cudnn = "none";
  try {
    const auto& hooks = at::detail::getCUDAHooks();
    if (hooks.compiledWithCuDNN()) cudnn = CudnnVersionString(hooks.versionCuDNN());
  } catch (const std::exception&) {
    cudnn = "unknown";
  }
  add("cudnn_version", cudnn);
  return c;
}

}  // namespace cuda
}  // namespace trickbench
