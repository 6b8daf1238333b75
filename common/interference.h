// What the operating system says about interference with a measurement: context
// switches, page faults, CPU steal, load. Sampled around each round of a benchmark so a
// reader can see why a sample is slow, and around a whole run so a compare can name a
// machine that was busier in one run than in the other.
//
//   const auto before = trickbench::SampleInterference();
//   RunTheRound();
//   const trickbench::Interference d = trickbench::SampleInterference() - before;
//   // d.involuntary_switches: preempted (another process wanted the core)
//   // d.minor_faults: pages touched for the first time (a fresh 4 MB buffer: ~1000)
//   // d.steal_seconds: time the hypervisor gave this VM's CPUs to someone else
//
// Process-wide (every thread, so loader workers count), from getrusage(RUSAGE_SELF) and
// /proc/stat; steal is machine-wide. On a system without /proc the steal is 0.
#pragma once

#include <cstdint>

namespace trickbench {

struct Interference {
  int64_t voluntary_switches = 0;    // waited (I/O, locks, sleeps)
  int64_t involuntary_switches = 0;  // preempted
  int64_t minor_faults = 0;          // page mapped without I/O
  int64_t major_faults = 0;          // page read from disk
  double steal_seconds = 0;          // all CPUs together
  double user_seconds = 0, system_seconds = 0;
};

Interference SampleInterference();
Interference operator-(const Interference& a, const Interference& b);

// The 1-minute load average and the number of online CPUs; -1 where unknown.
struct MachineLoad {
  double load_1min = -1;
  int cpus = -1;
};
MachineLoad SampleMachineLoad();

}  // namespace trickbench
