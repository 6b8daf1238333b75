#include "common/interference.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace trickbench {
namespace {

double StealSeconds() {
  std::ifstream in("/proc/stat");
  std::string label;
  // "cpu  user nice system idle iowait irq softirq steal ...", in clock ticks.
  if (!(in >> label) || label != "cpu") return 0;
  long long v[8] = {};
  for (auto& x : v) {
    if (!(in >> x)) return 0;
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  return ticks > 0 ? static_cast<double>(v[7]) / static_cast<double>(ticks) : 0;
}

double Seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; }

}  // namespace

Interference SampleInterference() {
  Interference s;
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) == 0) {
    s.voluntary_switches = u.ru_nvcsw;
    s.involuntary_switches = u.ru_nivcsw;
    s.minor_faults = u.ru_minflt;
    s.major_faults = u.ru_majflt;
    s.user_seconds = Seconds(u.ru_utime);
    s.system_seconds = Seconds(u.ru_stime);
  }
  s.steal_seconds = StealSeconds();
  return s;
}

Interference operator-(const Interference& a, const Interference& b) {
  Interference d;
  d.voluntary_switches = a.voluntary_switches - b.voluntary_switches;
  d.involuntary_switches = a.involuntary_switches - b.involuntary_switches;
  d.minor_faults = a.minor_faults - b.minor_faults;
  d.major_faults = a.major_faults - b.major_faults;
  d.steal_seconds = a.steal_seconds - b.steal_seconds;
  d.user_seconds = a.user_seconds - b.user_seconds;
  d.system_seconds = a.system_seconds - b.system_seconds;
  return d;
}

MachineLoad SampleMachineLoad() {
  MachineLoad m;
  std::ifstream in("/proc/loadavg");
  double l = -1;
  if (in >> l) m.load_1min = l;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus > 0) m.cpus = static_cast<int>(cpus);
  return m;
}

}  // namespace trickbench
