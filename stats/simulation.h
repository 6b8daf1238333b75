// Seeded benchmark experiments with the structure of a shared machine, for testing the
// statistics against a known truth: drift, process-level effects and heavy tails.
//
//   trickbench::stats::Scenario sc;          // defaults: 4 processes x 15 rounds
//   sc.true_log_speedup = std::log(1.10);
//   auto e = trickbench::stats::Simulate(sc, /*seed=*/42);
//   Speedup s = EstimateSpeedup(e.LogRatios());
//
// A process has its own level (both variants alike: frequency, neighbours) and its own
// speedup around the truth (allocation layout favours one variant). Each round's time
// of each variant gets Gaussian noise, a slow drift shared by the two variants of the
// round, and with probability tail_probability an interference hit (exponential, on
// the log scale) on one variant only: the heavy tail.
#pragma once

#include <cstdint>
#include <vector>

namespace trickbench {
namespace stats {

struct Scenario {
  int processes = 4;
  int rounds = 15;
  double true_log_speedup = 0;
  double process_level_sd = 0.20;   // log time, both variants
  double process_effect_sd = 0.02;  // log speedup, per process
  double round_sd = 0.03;           // log time, per variant and round
  double drift_per_round = 0.01;    // log time, random walk step, both variants
  double tail_probability = 0.05;
  double tail_mean = 0.5;  // mean extra log time of a hit
};

struct Experiment {
  // [process][round] log time (nanoseconds on the log scale, arbitrary origin).
  std::vector<std::vector<double>> baseline, variant;
  std::vector<std::vector<double>> LogRatios() const;  // baseline - variant, per round
};

Experiment Simulate(const Scenario& scenario, uint64_t seed);

}  // namespace stats
}  // namespace trickbench
