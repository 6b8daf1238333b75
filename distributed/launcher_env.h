// Which launcher started this process (torchrun, srun, mpirun), read from the variables
// each one sets, and checked: the rank, the world, the ranks on this machine, and where
// the c10d TCPStore is and who hosts it.
//
//   std::string error;
//   const auto launch = trickbench::distributed::DetectLauncher(std::getenv, &error);
//   if (!error.empty()) Fail(error);  // "srun: SLURM_PROCID=2 is not below SLURM_NTASKS=2"
//   if (!launch) StartRanksHere();    // no launcher: the benchmark starts its own ranks
//   else Join(*launch);               // launch->rank.rank, launch->agent_store, ...
//
// Detected, first match wins (a launcher inside another sets its own variables last):
//   torchrun (torchelastic)  TORCHELASTIC_RUN_ID; then RANK, WORLD_SIZE, MASTER_ADDR,
//                            MASTER_PORT, LOCAL_RANK required; LOCAL_WORLD_SIZE,
//                            TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_USE_AGENT_STORE
//                            (True: the agent hosts the store; unset means False, as in torch)
//   mpirun (Open MPI)        OMPI_COMM_WORLD_RANK; then OMPI_COMM_WORLD_SIZE, MASTER_ADDR,
//                            MASTER_PORT required; OMPI_COMM_WORLD_LOCAL_RANK/_LOCAL_SIZE
//   srun (Slurm)             SLURM_PROCID with SLURM_NTASKS > 1; then MASTER_ADDR,
//                            MASTER_PORT required; SLURM_LOCALID, SLURM_NTASKS_PER_NODE.
//                            SLURM_NTASKS=1 is no launcher: a batch script's own shell has
//                            SLURM_PROCID=0 too, and a world of one needs none.
// RANK / WORLD_SIZE beside mpirun's or srun's variables must agree with them. A rank
// the benchmark started itself (TRICKBENCH_RANK_LOCAL) never has a launcher.
// TRICKBENCH_LAUNCHER overrides detection: "none" (run as if started by hand),
// "env" (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT from any other launcher or script;
// rank 0 hosts the store), "auto" (the default).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "distributed/rank_env.h"

namespace trickbench::distributed {

enum class Launcher { kTorchrun, kMpirun, kSrun, kEnv };

// "torchrun", "mpirun", "srun", "env".
const char* LauncherName(Launcher launcher);

struct LaunchEnv {
  Launcher launcher = Launcher::kEnv;
  RankEnv rank;  // rank, world size, MASTER_ADDR:MASTER_PORT (the store's address)
  int local_rank = 0;
  int local_world_size = 1;  // ranks on this machine (for sharing its cores)
  // torchrun's agent already hosts the TCPStore at MASTER_ADDR:MASTER_PORT: every rank,
  // 0 included, is a client. Otherwise rank 0 hosts it.
  bool agent_store = false;
  // The keys of this attempt on the store: torchrun's agent store outlives a restart
  // (--max-restarts) and holds the agent's own keys, so each attempt has its own.
  std::string store_prefix = "trickbench";
};

// The launcher's environment from `getenv`, nullopt with *error empty when no launcher
// started this process, nullopt with a one-line *error naming the variable when one
// did but its variables are incomplete or contradictory.
std::optional<LaunchEnv> DetectLauncher(const std::function<const char*(const char*)>& getenv,
                                        std::string* error);

}  // namespace trickbench::distributed
