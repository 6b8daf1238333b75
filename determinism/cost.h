// The cost of deterministic mode on your own training step: the step timed with and
// without DeterministicGuard in paired rounds (each round runs both, in an order drawn
// from a seed: stats/schedule.h), as the ratio deterministic / default time with its
// interval (stats/speedup.h over the per-round log ratios).
//
//   trickbench::CostSamples s = trickbench::TimeDeterminismCost([&] { TrainStep(...); }, {});
//   trickbench::DeterminismCost c = trickbench::EstimateDeterminismCost({s.log_ratios});
//   std::cout << c.Describe();   // "deterministic mode: 1.07x the default time [1.03x, 1.11x] ..."
//
// One process's rounds see none of the variation between processes (allocation layout,
// frequency), so its interval is narrower than the truth and says so (method "rounds");
// pool several processes' log ratios, as `bazel run //determinism:cost` does, for an
// interval over processes. Under the guard an op without a deterministic implementation
// throws: that is reported as the step's error, since such a step cannot be made
// reproducible by the flags alone.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stats/speedup.h"

namespace trickbench {

struct CostOptions {
  int rounds = 10;
  double min_sample_seconds = 0.05;  // each sample runs the step this long at least
  uint64_t seed = 0;                 // the rounds' order
};

struct CostSamples {
  // Per round: log(default time / deterministic time); negative when determinism costs.
  std::vector<double> log_ratios;
  int64_t steps_per_sample = 0;  // calibrated once, the same for both modes
  std::string error;             // the step threw (in deterministic mode: an op without
                                 // a deterministic kernel); log_ratios is then empty
};

CostSamples TimeDeterminismCost(const std::function<void()>& step, const CostOptions& options);

struct DeterminismCost {
  double ratio = 1;          // deterministic time / default time
  double low = 1, high = 1;  // its interval (95 %)
  stats::Speedup estimate;   // the default mode's "speedup" over deterministic mode
  std::string Describe() const;
};

// One vector of log ratios per process. Throws std::invalid_argument without a round.
DeterminismCost EstimateDeterminismCost(const std::vector<std::vector<double>>& log_ratios);

}  // namespace trickbench
