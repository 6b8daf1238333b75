// The group of ranks a launcher started (torchrun, srun, mpirun: distributed/launcher_env.h):
// one Gloo group for the whole life of the processes, which every trick instance shares.
//
// Rank 0 is the benchmark. Its trick binary runs main as usual, having joined the group
// before main (rank_main.cc); each RankGroup it makes (distributed/rank_group.h) opens an
// *instance* here instead of starting processes:
//
//   LaunchedGroup* launched = LaunchedGroup::RankZero();  // nullptr: not a launched rank 0
//   const int64_t id = launched->Open("ddp_vs_dp", /*threads=*/1);  // a handler on every rank
//   c10::IValue reply = launched->Call(id, request);  // broadcast; every rank's handler runs
//   launched->Close(id);                              // every rank drops that handler
//
// The other ranks run ServeLaunchedRank(): each request rank 0 broadcasts goes to that
// instance's handler, until rank 0 says goodbye (when its process exits: exit 0), or
// fails or dies (exit 1, with a message naming the rank).
//
// One group for all instances, not one per instance: the harness keeps several
// instances alive at once (the timed rounds hold every variant's instance for a whole
// case, and both of ddp_no_sync's variants have ranks) and interleaves their calls. A
// serving rank is one process answering rank 0's broadcasts in order, so one group,
// ordered by rank 0, carries every instance without deadlock; a group per instance
// would need a serving thread per group on every rank and a rendezvous per instance.
// Each instance still gets fresh handler state on every rank (Open, Close), as when the
// benchmark starts ranks per instance, so measurements and reproducibility checks mean
// the same under both. The group's keys sit under LaunchEnv::store_prefix: torchrun's
// agent store also holds the agent's keys and, after a restart, the earlier attempt's.
//
// Failures end the group, are named, and are never waited out:
//   - a rank that fails (a handler throws, a collective breaks) writes what happened to
//     the store, wakes every rank's watcher thread (blocked on the store, no polling),
//     and waits up to 3 s for the others to answer; a rank that did not answer is
//     named as gone (it exited or was killed);
//   - a serving rank whose watcher is woken, or loses a store rank 0 hosted, exits 1
//     naming rank 0; rank 0 then throws RankFailure from every call;
//   - a serving rank waits for rank 0's next request at most TRICKBENCH_RANK_WAIT_S
//     (default 300) seconds, and collectives time out after 60 s.
#pragma once

#include <torch/types.h>

#include <map>
#include <memory>
#include <string>

#include "distributed/launcher_env.h"
#include "distributed/rank_main.h"

namespace trickbench::distributed {

class LaunchedGroup {
 public:
  // This process's group when it is rank 0 under a launcher and joined; else nullptr.
  static LaunchedGroup* RankZero();

  // Joins as rank 0 (hosting the store unless the launcher's agent does), once per
  // process; prints why and exits 1 when the group cannot form. Before main.
  static void StartRankZero(const LaunchEnv& env);

  // A handler of `entry` (a TRICKBENCH_RANK_MAIN) on every rank, whose calls run with
  // `threads` intra-op threads. Throws RankFailure when the group has failed.
  int64_t Open(const std::string& entry, int threads);
  // Broadcasts `request` to instance `id` and returns rank 0's handler's reply. Throws
  // RankFailure naming the rank and the cause; the group is then failed for good.
  c10::IValue Call(int64_t id, const c10::IValue& request);
  // Drops the instance on every rank. Never throws (destructors call it).
  void Close(int64_t id);

  const LaunchEnv& env() const;

  struct State;  // the joined group, its store and watcher (launched_group.cc)

 private:
  explicit LaunchedGroup(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Registers `entry`'s handler factory for rank 0's Open (rank_main.cc, before main).
void RegisterRankMain(const char* entry, RankHandlerFactory factory);

// A serving rank (rank >= 1 under a launcher): joins, serves, exits. Never returns.
[[noreturn]] void ServeLaunchedRank(const LaunchEnv& env, const std::string& entry,
                                    RankHandlerFactory factory);

}  // namespace trickbench::distributed
