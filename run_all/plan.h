// The order in which run_all starts trick processes: round-robin over the tricks, and in
// an A/B session the two builds' processes paired in seeded ABBA order.
//
//   RoundRobin(2, 3)      // a p1, b p1, a p2, b p2, a p3, b p3
//   AbbaOrder(2, 1, 42)   // a p1 old, a p1 new, b p1 new, b p1 old (or the mirror)
//
// Why round-robin and not a trick's processes back to back: drift over the run (the
// machine warming, a neighbour starting) then lands on every trick alike instead of on
// whichever ran last, and the processes of one trick are spread over the run, so their
// spread measures it. Why ABBA: in a pair, the second process meets a warmer machine and
// a different page cache than the first; alternating which build goes first within each
// two pairs cancels that order effect (and a linear drift) between the builds, and
// drawing which of AB,BA or BA,AB comes first from a seed keeps a periodic disturbance
// from lining up with one build. The seed is recorded, so the order can be replayed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trickbench {
namespace run_all {

enum class Build { kOnly, kOld, kNew };  // kOnly: not an A/B session

// "old", "new" (results::kAbOld, kAbNew); "" for kOnly.
std::string RoleName(Build build);

struct Job {
  size_t trick = 0;  // index into the run's tricks
  int process = 1;   // 1-based
  Build build = Build::kOnly;
};

// Every trick's process 1, then every trick's process 2, ...
std::vector<Job> RoundRobin(size_t tricks, int processes);

// RoundRobin's jobs, each as an old and a new process back to back. Pairs go in twos:
// (old,new),(new,old) or (new,old),(old,new), each two drawn from `seed`; an odd last
// pair takes the first half of its draw. The same seed gives the same order on every
// platform (std::mt19937_64, whose output the standard fixes).
std::vector<Job> AbbaOrder(size_t tricks, int processes, uint64_t seed);

// Per element, whether no later element equals it. Given the binary each job starts: after
// the job, that binary's fork server has nothing more to start from this list (a server
// is per binary, and an A/A session's two builds may name the same one).
std::vector<bool> LastOfEach(const std::vector<std::string>& keys);

}  // namespace run_all
}  // namespace trickbench
