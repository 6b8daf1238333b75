// The benchmark's side of a group of rank processes: start them, send each request to
// every rank, get rank 0's reply, and make sure none of them outlives the group.
//
//   trickbench::distributed::RankGroupOptions options;
//   options.entry = "ddp_vs_dp";            // the TRICKBENCH_RANK_MAIN the ranks run
//   options.world_size = 2;
//   trickbench::distributed::RankGroup group(options);  // re-executes /proc/self/exe twice
//   c10::IValue loss = group.Call(StepRequest());  // one synchronised step of all ranks
//   // ~RankGroup: ranks told to quit, then killed if still there, then reaped.
//
// Ranks are started with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (a free port on
// 127.0.0.1 unless given), LOCAL_RANK, TRICKBENCH_RANK_ENTRY and
// TRICKBENCH_RANK_THREADS in their environment, in a process group of their own, with
// SIGKILL as their parent-death signal and their stdout sent to stderr (the
// benchmark's stdout may be a JSON stream). Only rank 0 is connected to this process;
// it passes each request on to the others with a broadcast.
//
// Failure is detected, reported and cleaned up, never waited out: a rank that exits
// or is killed, a handler that throws, or no reply within reply_timeout makes Call
// kill every rank, reap them, and throw RankFailure naming the rank and the cause.
// After that the group is dead and every Call throws.
//
// With local_ranks < world_size only ranks 0..local_ranks-1 start here; the others are
// the same binary started by hand on other machines (see distributed/README.md).
//
// Under a launcher (torchrun, srun, mpirun) this process is rank 0 itself and starts
// nothing: a RankGroup is an instance on the launcher's group (distributed/launched_group.h),
// its requests run on every launched rank, rank 0's handler here, and world_size,
// local_ranks and the master address are the launcher's (options() says them).
#pragma once

#include <sys/types.h>
#include <torch/types.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace trickbench::distributed {

struct LaunchEnv;  // distributed/launcher_env.h
class LaunchedGroup;

// The launcher's environment when this process is rank 0 under a launcher (its
// RankGroups then start no process); nullptr when the benchmark starts its own ranks.
const LaunchEnv* Launched();

class RankFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RankGroupOptions {
  std::string entry;  // name given to TRICKBENCH_RANK_MAIN; required
  int world_size = 2;
  int local_ranks = -1;  // ranks started here; -1: all of them
  std::string master_addr = "127.0.0.1";
  int master_port = 0;                             // 0: a free port on 127.0.0.1
  int threads_per_rank = 1;                        // intra-op threads of each rank
  std::chrono::milliseconds reply_timeout{60000};  // per Call, startup included
  std::string executable = "/proc/self/exe";
};

class RankGroup {
 public:
  // Starts the local ranks. Throws std::invalid_argument on bad options and
  // RankFailure when a process cannot be started.
  explicit RankGroup(const RankGroupOptions& options);
  ~RankGroup();
  RankGroup(const RankGroup&) = delete;
  RankGroup& operator=(const RankGroup&) = delete;

  // Sends `request` to every rank and returns rank 0's reply. Throws RankFailure
  // (see above); the group is then stopped.
  c10::IValue Call(const c10::IValue& request);

  // Asks the ranks to quit, waits up to `grace` for them, kills the rest, reaps all.
  // Idempotent; the destructor calls it.
  void Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));

  // Process ids of the local ranks, rank order (still listed after they are reaped);
  // none under a launcher.
  const std::vector<pid_t>& pids() const { return pids_; }
  const RankGroupOptions& options() const { return options_; }
  bool alive() const { return alive_; }
  // True when the ranks are a launcher's (this process is rank 0).
  bool launched() const { return launched_ != nullptr; }

 private:
  void Start();
  // Kills every local rank (process group and each pid) and reaps them.
  void KillAll();
  // "" while every rank runs; else which rank ended and how (and it is reaped).
  std::string ReapExited();
  [[noreturn]] void Fail(const std::string& why);

  RankGroupOptions options_;
  std::vector<pid_t> pids_;
  std::vector<bool> reaped_;
  pid_t process_group_ = 0;
  int control_fd_ = -1;  // our end of rank 0's socket pair
  bool alive_ = false;
  LaunchedGroup* launched_ = nullptr;  // under a launcher: the group, and our instance on it
  int64_t launched_id_ = -1;
};

}  // namespace trickbench::distributed
