// The order of a paired, randomized experiment (randomized multiple interleaved trials):
// R rounds, and in each round every variant of a case once, back to back, in an order
// drawn from a seeded RNG, so the order is recorded and can be redrawn from the seed.
//
//   trickbench::stats::RoundSchedule plan = trickbench::stats::ScheduleRounds(3, 20, seed);
//   for (const auto& round : plan.rounds)
//     for (int position = 0; position < 3; ++position) Run(round[position]);
//
// Why random and per round: a fixed order gives the variant that always runs second the
// warm caches (or the throttled clock) of the first; a shuffle per round turns such order
// effects into noise that both variants share, and pairing within a round cancels drift
// slower than a round.
#pragma once

#include <cstdint>
#include <vector>

namespace trickbench {
namespace stats {

struct RoundSchedule {
  uint64_t seed = 0;
  int variants = 0;
  // rounds[r][position] = the variant index that runs at that position in round r.
  std::vector<std::vector<int>> rounds;
};

// variants >= 1, rounds >= 1; throws std::invalid_argument otherwise.
RoundSchedule ScheduleRounds(int variants, int rounds, uint64_t seed);

}  // namespace stats
}  // namespace trickbench
