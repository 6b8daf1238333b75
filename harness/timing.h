// Timing backends: how a trick binary times a variant's samples on its device, and
// what that device adds to a result. One is chosen per run, once, for the device:
//
//   TimingBackends::Declare(flags, &opts.backend_switches);   // their flags: --flush_l2
//   std::unique_ptr<TimingBackend> timing = TimingBackends::For(device, opts.backend_switches);
//   const double seconds = timing->TimeSample(iterations, [&] { body(trick); });
//
// The CPU wall clock is built in and times every device no other backend claims. A
// backend that needs libraries only some builds have (CUDA events) lives in its own
// *_cuda.cc files, compiled only in that build, and registers itself from a static
// initialiser (cuda_backend_cuda.cc, an alwayslink library):
//
//   const bool registered = trickbench::TimingBackends::Register(
//       {"cuda_events", kUsage, {{"flush_l2", "..."}}, IsCudaDevice, MakeCudaBackend});
//
// so that nothing else in the harness is compiled differently for it: a CPU build and a
// CUDA build share every object but the backend's own. To add a backend, write one
// such file; the runner needs no change.
#pragma once

#include <torch/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/flags.h"
#include "harness/context.h"
#include "results/checked_json.h"

namespace trickbench {

// Device memory of a region, the device twin of CpuMemoryMeter: starts when made.
class DeviceMemoryMeter {
 public:
  virtual ~DeviceMemoryMeter() = default;
  // Adds the region's counters (the CUDA one: cuda_peak_allocated_bytes, ...).
  virtual void AddCounters(std::map<std::string, double>* counters) const = 0;
};

// Times one interval of device work (gpu_selftest's measurements).
class IntervalTimer {
 public:
  virtual ~IntervalTimer() = default;
  virtual void Start() = 0;
  // Waits for the work started since Start() and returns its seconds.
  virtual double StopSeconds() = 0;
};

class TimingBackend {
 public:
  virtual ~TimingBackend() = default;

  // What the result records as trickbench.settings.timing: "wall_clock", "cuda_events".
  virtual std::string name() const = 0;

  // Times one sample: `iterations` calls of `body`, back to back, and returns their
  // seconds on this backend's clock (the CPU wall clock; CUDA events on a CUDA device).
  // Whatever work was queued before the call is not part of the sample.
  virtual double TimeSample(int64_t iterations, const std::function<void()>& body) = 0;
  // The host's seconds in the last TimeSample issuing its iterations, not counting any
  // wait for the device. Beside the device time it tells a host-bound sample (the device
  // waited for launches: about equal) from a device-bound one (far less). The wall clock
  // times the host, so its host time is its time.
  virtual double LastSampleHostSeconds() const = 0;

  // A meter for the device memory of a check run; nullptr when the device has none
  // the harness can see (the CPU's is CpuMemoryMeter, always on in the checks).
  virtual std::unique_ptr<DeviceMemoryMeter> MeterDeviceMemory() const { return nullptr; }

  // Adds or overwrites context entries (device facts).
  virtual void AddContext(Context* context) const {}

  // Settings written after "timing" in trickbench.settings ({"flush_l2": true}).
  virtual results::Json Settings() const { return results::Json::object(); }

  // Extra console summary lines for `variant` against `baseline`, from their check
  // counters (the CUDA one: the peak device memory change).
  virtual std::vector<std::string> SummaryLines(
      const std::map<std::string, double>& baseline_counters,
      const std::map<std::string, double>& variant_counters) const {
    return {};
  }

  virtual std::unique_ptr<IntervalTimer> NewIntervalTimer() const = 0;
};

// The registry of backends beyond the built-in wall clock.
class TimingBackends {
 public:
  // Switches (Bool flags) of every registered backend, by flag name.
  using Switches = std::map<std::string, bool>;

  // A Bool flag of a backend (--flush_l2), stored in Switches under its name.
  struct Switch {
    std::string name;
    std::string help;
  };

  struct Registration {
    std::string name;   // the backend's name(), e.g. "cuda_events"
    std::string usage;  // appended to --help, after the flag list
    std::vector<Switch> switches;
    // Whether this backend times runs on `device`.
    std::function<bool(const torch::Device& device)> handles;
    // Makes the backend for `device`, configured by the switches' values.
    std::function<std::unique_ptr<TimingBackend>(const torch::Device& device,
                                                 const Switches& switches)>
        create;
  };

  // From a static initialiser; returns true (for `static const bool registered = ...`).
  static bool Register(Registration registration);
  static const std::vector<Registration>& Registered();
  // nullptr when no backend of that name is linked into this binary.
  static const Registration* Find(const std::string& name);

  // Declares every registered backend's switches as Bool flags stored in *switches.
  static void Declare(Flags& flags, Switches* switches);
  // The switches that are on but belong to another backend than `chosen`: given for a
  // device they do not apply to (--flush_l2 on the CPU), for a warning.
  static std::vector<std::string> IgnoredSwitches(const TimingBackend& chosen,
                                                  const Switches& switches);
  // Every registered backend's usage text.
  static std::string Usage();
  // The first registered backend that handles `device`, else the wall clock.
  static std::unique_ptr<TimingBackend> For(const torch::Device& device,
                                            const Switches& switches = {});
};

// The CPU wall clock (steady clock, real time), because a trick whose
// work runs on other threads (loader workers, the intra-op pool) uses little CPU time
// on the main thread. On a device without its own backend it measures launch cost,
// not device time (kernels run asynchronously), so TrickMain warns there.
std::unique_ptr<TimingBackend> MakeWallClockBackend();

}  // namespace trickbench
