#include "run_all/plan.h"

#include <random>
#include <set>

#include "results/run_index.h"

namespace trickbench {
namespace run_all {

std::string RoleName(Build build) {
  switch (build) {
    case Build::kOld:
      return results::kAbOld;
    case Build::kNew:
      return results::kAbNew;
    case Build::kOnly:
      break;
  }
  return "";
}

std::vector<Job> RoundRobin(size_t tricks, int processes) {
  std::vector<Job> jobs;
  for (int k = 1; k <= processes; ++k) {
    for (size_t t = 0; t < tricks; ++t) jobs.push_back({t, k, Build::kOnly});
  }
  return jobs;
}

std::vector<Job> AbbaOrder(size_t tricks, int processes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  bool old_first = true;
  std::vector<Job> jobs;
  const std::vector<Job> pairs = RoundRobin(tricks, processes);
  for (size_t i = 0; i < pairs.size(); ++i) {
    // The top bit: the standard fixes mt19937_64's output, not a distribution's.
    old_first = i % 2 == 0 ? (rng() >> 63) != 0 : !old_first;
    const Build first = old_first ? Build::kOld : Build::kNew;
    const Build second = old_first ? Build::kNew : Build::kOld;
    jobs.push_back({pairs[i].trick, pairs[i].process, first});
    jobs.push_back({pairs[i].trick, pairs[i].process, second});
  }
  return jobs;
}

std::vector<bool> LastOfEach(const std::vector<std::string>& keys) {
  std::vector<bool> last(keys.size(), false);
  std::set<std::string> seen;
  for (size_t i = keys.size(); i-- > 0;) last[i] = seen.insert(keys[i]).second;
  return last;
}

}  // namespace run_all
}  // namespace trickbench
