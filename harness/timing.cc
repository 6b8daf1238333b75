#include "harness/timing.h"

#include <chrono>
#include <stdexcept>

namespace trickbench {
namespace {

std::vector<TimingBackends::Registration>& Storage() {
  // Never destroyed: registrations run from static initialisers of other files.
  static auto* registrations = new std::vector<TimingBackends::Registration>();
  return *registrations;
}

class SteadyClockTimer : public IntervalTimer {
 public:
  void Start() override { start_ = std::chrono::steady_clock::now(); }
  double StopSeconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

class WallClockBackend : public TimingBackend {
 public:
  std::string name() const override { return "wall_clock"; }
  double TimeSample(int64_t iterations, const std::function<void()>& body) override {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iterations; ++i) body();
    last_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return last_;
  }
  double LastSampleHostSeconds() const override { return last_; }
  std::unique_ptr<IntervalTimer> NewIntervalTimer() const override {
    return std::make_unique<SteadyClockTimer>();
  }

 private:
  double last_ = 0;
};

}  // namespace

bool TimingBackends::Register(Registration registration) {
  if (registration.name.empty() || !registration.handles || !registration.create) {
    throw std::logic_error("timing backend registration without a name, handles or create");
  }
  if (Find(registration.name)) {
    throw std::logic_error("timing backend " + registration.name + " registered twice");
  }
  Storage().push_back(std::move(registration));
  return true;
}

const std::vector<TimingBackends::Registration>& TimingBackends::Registered() { return Storage(); }

const TimingBackends::Registration* TimingBackends::Find(const std::string& name) {
  for (const Registration& r : Storage()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

void TimingBackends::Declare(Flags& flags, Switches* switches) {
  for (const Registration& r : Storage()) {
    for (const Switch& s : r.switches) flags.Bool(s.name, &(*switches)[s.name], s.help);
  }
}

std::vector<std::string> TimingBackends::IgnoredSwitches(const TimingBackend& chosen,
                                                         const Switches& switches) {
  std::vector<std::string> ignored;
  for (const Registration& r : Storage()) {
    if (r.name == chosen.name()) continue;
    for (const Switch& s : r.switches) {
      const auto it = switches.find(s.name);
      if (it != switches.end() && it->second) ignored.push_back(s.name);
    }
  }
  return ignored;
}

std::string TimingBackends::Usage() {
  std::string usage;
  for (const Registration& r : Storage()) usage += r.usage;
  return usage;
}

std::unique_ptr<TimingBackend> TimingBackends::For(const torch::Device& device,
                                                   const Switches& switches) {
  for (const Registration& r : Storage()) {
    if (r.handles(device)) return r.create(device, switches);
  }
  return MakeWallClockBackend();
}

std::unique_ptr<TimingBackend> MakeWallClockBackend() {
  return std::make_unique<WallClockBackend>();
}

}  // namespace trickbench
