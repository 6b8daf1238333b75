// How fast this CPU runs a fixed piece of branchy, dependent integer code right now: a
// meter of the machine's speed beside every timed sample, so that a reader can tell a
// slow sample of a slow machine from a slow variant.
//
//   const trickbench::SpeedProbe p = trickbench::RunSpeedProbe();
//   sample.probe_ns = p.ns;  // ~0.1 ms on an idle core; more while the core is slow
//
// Why. On a shared VM the speed of code bound by branches and dispatch (a loop of small
// LibTorch ops: the baseline of many tricks) changes in spells of seconds, up to 2x,
// with the thread on its CPU throughout (no steal, no preemption), while vectorized code
// barely moves; each CPU has its own spells. Measured on a 2-core VM: the per-second
// medians of this loop and of a loop of small LibTorch ops correlated 0.95, and the
// processes of a trick whose baseline is such a loop gave log speedups that correlated
// 0.91-0.99 with their baseline's speed. Paired rounds do not cancel that (the variants
// respond to a spell differently), so it lands in the spread between processes; a meter
// that no variant affects is what lets an analysis say how much of that spread is the
// machine's (README: where the spread between processes comes from).
//
// Plain integer code, no LibTorch, no allocation: what it costs depends only on the
// core's speed (frequency, and what shares the core). Its result depends on the work
// done, so the compiler cannot drop the loop.
#pragma once

#include <cstdint>

namespace trickbench {

// About 0.1 ms on a 2023 Xeon core: short beside a sample (trickbench's min_time is
// 20 ms), long beside the clock's resolution.
inline constexpr int kSpeedProbeSteps = 30000;

struct SpeedProbe {
  double ns = 0;          // wall time of the loop
  uint64_t checksum = 0;  // what the loop computed (a function of `steps` alone)
};

SpeedProbe RunSpeedProbe(int steps = kSpeedProbeSteps);

}  // namespace trickbench
