// The CUDA timing backend (CUDA builds only: Bazel --config=cuda links this file, as an
// alwayslink library, and CMake with a CUDA LibTorch): CUDA events on the current
// stream, the optional L2 flush, caching-allocator memory and device facts, all from
// cuda_timing.h. It registers itself below; see timing.h for what a backend supplies.
#include <iomanip>
#include <sstream>

#include "harness/cuda_timing.h"
#include "harness/timing.h"

namespace trickbench {
namespace {

constexpr char kUsage[] = R"(
On a CUDA device each sample is timed with CUDA events on the current stream (each
iteration on its own with --flush_l2); the device memory peak of each variant comes
from its check runs; see docs/GPU.md.
)";

constexpr char kFlushL2Help[] =
    "on a CUDA device, write a buffer twice the L2 size before every\n"
    "timed iteration (untimed), so each one starts with a cold cache";

class CudaMeter : public DeviceMemoryMeter {
 public:
  explicit CudaMeter(const torch::Device& device) : meter_(device) {}
  void AddCounters(std::map<std::string, double>* counters) const override {
    meter_.AddCounters(counters);
  }

 private:
  cuda::DeviceMemoryMeter meter_;
};

class EventTimer : public IntervalTimer {
 public:
  explicit EventTimer(int device_index) : timer_(device_index, /*flush_l2=*/false) {}
  void Start() override { timer_.Start(); }
  double StopSeconds() override { return timer_.StopSeconds(); }

 private:
  cuda::IterationTimer timer_;
};

class CudaEventsBackend : public TimingBackend {
 public:
  CudaEventsBackend(const torch::Device& device, bool flush_l2)
      : device_(device), index_(device.has_index() ? device.index() : 0), flush_l2_(flush_l2) {}

  std::string name() const override { return "cuda_events"; }

  double TimeSample(int64_t iterations, const std::function<void()>& body) override {
    return cuda::TimeIterations(index_, flush_l2_, iterations, body, &host_seconds_);
  }
  double LastSampleHostSeconds() const override { return host_seconds_; }

  std::unique_ptr<DeviceMemoryMeter> MeterDeviceMemory() const override {
    return std::make_unique<CudaMeter>(device_);
  }

  void AddContext(Context* context) const override {
    // A context without its device facts is still a result: a failed query says so.
    try {
      for (const auto& kv : cuda::DeviceContext(index_)) context->push_back(kv);
      for (auto& [key, value] : *context) {
        if (key == "device_name") value = cuda::DeviceName(index_);
      }
    } catch (const std::exception& e) {
      context->emplace_back("cuda_context_error", e.what());
    }
  }

  results::Json Settings() const override { return {{"flush_l2", flush_l2_}}; }

  std::vector<std::string> SummaryLines(
      const std::map<std::string, double>& baseline_counters,
      const std::map<std::string, double>& variant_counters) const override {
    const auto base = baseline_counters.find("cuda_peak_allocated_bytes");
    const auto var = variant_counters.find("cuda_peak_allocated_bytes");
    if (base == baseline_counters.end() || var == variant_counters.end()) return {};
    const double b = base->second, v = var->second;
    std::ostringstream line;
    line << std::fixed << std::setprecision(2) << "    peak device memory (CUDA caching allocator) "
         << static_cast<int64_t>(b) << " -> " << static_cast<int64_t>(v) << " bytes ("
         << std::showpos << (b > 0 ? 100.0 * (v - b) / b : 0.0) << std::noshowpos << "%)";
    return {line.str()};
  }

  std::unique_ptr<IntervalTimer> NewIntervalTimer() const override {
    return std::make_unique<EventTimer>(index_);
  }

 private:
  torch::Device device_;
  int index_;
  bool flush_l2_;
  double host_seconds_ = 0;
};

[[maybe_unused]] const bool registered = TimingBackends::Register(
    {"cuda_events",
     kUsage,
     {{"flush_l2", kFlushL2Help}},
     [](const torch::Device& device) { return device.is_cuda(); },
     [](const torch::Device& device, const TimingBackends::Switches& switches) {
       const auto it = switches.find("flush_l2");
       return std::unique_ptr<TimingBackend>(
           new CudaEventsBackend(device, it != switches.end() && it->second));
     }});

}  // namespace
}  // namespace trickbench
