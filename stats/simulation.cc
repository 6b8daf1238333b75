#include "stats/simulation.h"

#include <cmath>
#include <random>

namespace trickbench {
namespace stats {

std::vector<std::vector<double>> Experiment::LogRatios() const {
  std::vector<std::vector<double>> out(baseline.size());
  for (size_t p = 0; p < baseline.size(); ++p) {
    for (size_t r = 0; r < baseline[p].size(); ++r)
      out[p].push_back(baseline[p][r] - variant[p][r]);
  }
  return out;
}

Experiment Simulate(const Scenario& sc, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  std::bernoulli_distribution hit(sc.tail_probability);
  std::exponential_distribution<double> tail(1 / sc.tail_mean);
  Experiment e;
  e.baseline.resize(sc.processes);
  e.variant.resize(sc.processes);
  for (int p = 0; p < sc.processes; ++p) {
    const double level = std::log(1e6) + sc.process_level_sd * normal(rng);
    const double speedup = sc.true_log_speedup + sc.process_effect_sd * normal(rng);
    double drift = 0;
    for (int r = 0; r < sc.rounds; ++r) {
      drift += sc.drift_per_round * normal(rng);
      double b = level + drift + sc.round_sd * normal(rng);
      double v = level - speedup + drift + sc.round_sd * normal(rng);
      if (hit(rng)) b += tail(rng);
      if (hit(rng)) v += tail(rng);
      e.baseline[p].push_back(b);
      e.variant[p].push_back(v);
    }
  }
  return e;
}

}  // namespace stats
}  // namespace trickbench
