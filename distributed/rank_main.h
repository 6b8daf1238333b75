// The rank's side of distributed/: what a re-executed benchmark binary runs instead of main.
//
// A trick (or test) registers a rank main by name; when the binary starts with RANK in
// its environment (and TRICKBENCH_RANK_ENTRY, if set, naming this entry), the rank main
// runs from a static initialiser, before main, and the process exits when it returns:
//
//   c10::IValue Step(const c10::IValue& request);           // runs on every rank
//   trickbench::distributed::RankHandler MakeHandler(trickbench::distributed::Group& group,
//                                             const trickbench::distributed::RankEnv& env) {
//     return [&group](const c10::IValue& request) { return Step(group, request); };
//   }
//   TRICKBENCH_RANK_MAIN(ddp_vs_dp, MakeHandler);
//
// The rank joins the Gloo group (distributed/process_group.h), builds its handler, then serves:
// rank 0 reads each request from the benchmark (distributed/rank_group.h) and broadcasts it;
// every rank calls the handler; rank 0 sends its reply back. A handler that throws
// ends its rank with the message (rank 0 also sends it to the benchmark).
//
// Under a launcher (torchrun, srun, mpirun: distributed/launcher_env.h) every rank is the
// launcher's: rank 0 joins the launcher's group here and returns false, so main runs
// the benchmark; the others serve it (distributed/launched_group.h) and exit when it ends.
//
// Ranks started by RankGroup serve one group and exit. A rank started by hand on
// another machine (RANK >= 1, see distributed/README.md) serves group after group: each
// instance of a benchmark is a new group on the same MASTER_ADDR:MASTER_PORT; it exits
// when no group forms within TRICKBENCH_RANK_WAIT_S seconds (default 300).
//
// Runs before main: a rank main must not rely on other translation units' statics
// (LibTorch's, in its shared library, are ready).
#pragma once

#include <torch/types.h>

#include <functional>

#include "distributed/process_group.h"
#include "distributed/rank_env.h"

namespace trickbench::distributed {

using RankHandler = std::function<c10::IValue(const c10::IValue& request)>;
using RankHandlerFactory = RankHandler (*)(Group& group, const RankEnv& env);

// When this process is a rank for `entry`, serves and exits (never returns); else
// returns false. For TRICKBENCH_RANK_MAIN.
bool RunRankIfRequested(const char* entry, RankHandlerFactory factory);

// The serving loop itself, for one joined group. control_fd: rank 0's channel to the
// benchmark, -1 on other ranks. Returns 0 after a quit request, 1 after a failure.
int ServeRequests(Group& group, int control_fd, const RankHandler& handler);

}  // namespace trickbench::distributed

#define TRICKBENCH_RANK_MAIN(entry, factory)                        \
  static const bool TRICKBENCH_RANK_MAIN_##entry [[maybe_unused]] = \
      ::trickbench::distributed::RunRankIfRequested(#entry, factory)
