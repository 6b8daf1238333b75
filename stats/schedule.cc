#include "stats/schedule.h"

#include <numeric>
#include <random>
#include <stdexcept>

namespace trickbench {
namespace stats {

RoundSchedule ScheduleRounds(int variants, int rounds, uint64_t seed) {
  if (variants < 1 || rounds < 1) {
    throw std::invalid_argument("ScheduleRounds: needs at least one variant and one round");
  }
  RoundSchedule plan;
  plan.seed = seed;
  plan.variants = variants;
  // A Fisher-Yates shuffle of our own: std::shuffle's algorithm is unspecified, so the
  // same seed could give another order with another standard library.
  std::mt19937_64 rng(seed);
  for (int r = 0; r < rounds; ++r) {
    std::vector<int> order(variants);
    std::iota(order.begin(), order.end(), 0);
    for (int i = variants - 1; i > 0; --i) {
      const int j = static_cast<int>(rng() % static_cast<uint64_t>(i + 1));
      std::swap(order[i], order[j]);
    }
    plan.rounds.push_back(std::move(order));
  }
  return plan;
}

}  // namespace stats
}  // namespace trickbench
