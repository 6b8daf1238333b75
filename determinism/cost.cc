#include "determinism/cost.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <optional>
#include <sstream>

#include "determinism/guard.h"
#include "stats/schedule.h"

namespace trickbench {
namespace {

// Seconds for `steps` runs of `step`, in deterministic mode or not.
double Sample(const std::function<void()>& step, int64_t steps, bool deterministic) {
  std::optional<DeterministicGuard> guard;
  if (deterministic) guard.emplace();
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < steps; ++i) step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CostSamples TimeDeterminismCost(const std::function<void()>& step, const CostOptions& options) {
  CostSamples out;
  try {
    // Warm up both modes (the first run allocates and builds what later runs reuse), then
    // calibrate on the default mode: the same step count for both keeps the ratio a ratio
    // of per-step times.
    Sample(step, 1, false);
    Sample(step, 1, true);
    int64_t steps = 1;
    for (double t = Sample(step, steps, false); t < options.min_sample_seconds && steps < (1 << 20);
         t = Sample(step, steps, false)) {
      steps *= 2;
    }
    out.steps_per_sample = steps;
    const stats::RoundSchedule plan = stats::ScheduleRounds(2, options.rounds, options.seed);
    for (const auto& round : plan.rounds) {
      double seconds[2] = {0, 0};
      for (const int mode : round) seconds[mode] = Sample(step, steps, mode == 1);
      out.log_ratios.push_back(std::log(seconds[0] / seconds[1]));
    }
  } catch (const std::exception& e) {
    out.log_ratios.clear();
    out.error = e.what();
  }
  return out;
}

DeterminismCost EstimateDeterminismCost(const std::vector<std::vector<double>>& log_ratios) {
  DeterminismCost c;
  c.estimate = stats::EstimateSpeedup(log_ratios);
  c.ratio = 1 / c.estimate.speedup;
  c.low = 1 / c.estimate.high;
  c.high = 1 / c.estimate.low;
  return c;
}

std::string DeterminismCost::Describe() const {
  std::ostringstream os;
  os.precision(3);
  os << std::fixed << "deterministic mode: " << ratio << "x the default mode's time [" << low
     << "x, " << high << "x] (" << estimate.processes << " processes, " << estimate.rounds
     << " paired rounds, interval: " << estimate.method;
  if (estimate.method == "rounds") os << ", one process: narrower than across processes";
  os << ")";
  return os.str();
}

}  // namespace trickbench
