#include "distributed/launcher_env.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace trickbench::distributed {
namespace {

using Getenv = std::function<const char*(const char*)>;

// Reads integer variables for one launcher; the first problem is kept, prefixed with
// the launcher's name, and every later read is a no-op.
class Reader {
 public:
  Reader(const Getenv& getenv, const char* launcher, std::string* error)
      : getenv_(getenv), launcher_(launcher), error_(error) {}

  bool ok() const { return error_->empty(); }
  void Fail(const std::string& what) {
    if (ok()) *error_ = std::string(launcher_) + ": " + what;
  }

  // The variable's value in [lo, hi]; `fallback` when unset and not required.
  int Int(const char* name, long lo, long hi, bool required, int fallback = 0) {
    const char* v = getenv_(name);
    if (v == nullptr) {
      if (required) Fail(std::string(name) + " is not set");
      return fallback;
    }
    const auto n = ParseEnvInt(v, lo, hi);
    if (!n) {
      Fail(std::string(name) + "=" + v + " is not a whole number in " + std::to_string(lo) + ".." +
           std::to_string(hi));
      return fallback;
    }
    return static_cast<int>(*n);
  }

  // Fails when `value` (from `name`) is not below `bound` (from `bound_name`).
  void Below(const char* name, int value, const char* bound_name, int bound) {
    if (ok() && value >= bound) {
      Fail(std::string(name) + "=" + std::to_string(value) + " is not below " + bound_name + "=" +
           std::to_string(bound));
    }
  }

  // Fails when `value` (from `name`) is above `bound` (from `bound_name`).
  void NotAbove(const char* name, int value, const char* bound_name, int bound) {
    if (ok() && value > bound) {
      Fail(std::string(name) + "=" + std::to_string(value) + " is above " + bound_name + "=" +
           std::to_string(bound));
    }
  }

  // RANK or WORLD_SIZE, when also set, must say what the launcher's own variable says.
  void Agrees(const char* name, const char* launcher_name, int launcher_value) {
    const char* v = getenv_(name);
    if (!ok() || v == nullptr) return;
    const auto n = ParseEnvInt(v, 0, 1 << 16);
    if (!n || *n != launcher_value) {
      Fail(std::string(name) + "=" + v + " contradicts " + launcher_name + "=" +
           std::to_string(launcher_value));
    }
  }

  // MASTER_ADDR and MASTER_PORT: where the store is.
  void Master(RankEnv* env) {
    const char* addr = getenv_("MASTER_ADDR");
    if (addr == nullptr || *addr == '\0') {
      Fail(std::string("MASTER_ADDR is ") + (addr ? "empty" : "not set") +
           " (export MASTER_ADDR and MASTER_PORT to every rank: rank 0's host and a free port)");
      return;
    }
    env->master_addr = addr;
    env->master_port = Int("MASTER_PORT", 1, 65535, /*required=*/true);
  }

 private:
  const Getenv& getenv_;
  const char* launcher_;
  std::string* error_;
};

constexpr long kMaxWorld = 1 << 16;

// The ranks on this machine cannot outnumber the world.
std::optional<LaunchEnv> Finish(Reader& r, const char* local_size_name, const char* world_name,
                                LaunchEnv env) {
  r.NotAbove(local_size_name, env.local_world_size, world_name, env.rank.world_size);
  if (!r.ok()) return std::nullopt;
  return env;
}

std::optional<LaunchEnv> Torchrun(const Getenv& getenv, std::string* error) {
  Reader r(getenv, "torchrun", error);
  LaunchEnv env;
  env.launcher = Launcher::kTorchrun;
  env.rank.rank = r.Int("RANK", 0, kMaxWorld, true);
  env.rank.world_size = r.Int("WORLD_SIZE", 1, kMaxWorld, true, 1);
  r.Below("RANK", env.rank.rank, "WORLD_SIZE", env.rank.world_size);
  r.Master(&env.rank);
  env.local_rank = r.Int("LOCAL_RANK", 0, kMaxWorld, true);
  env.local_world_size = r.Int("LOCAL_WORLD_SIZE", 1, kMaxWorld, false, env.rank.world_size);
  r.Below("LOCAL_RANK", env.local_rank, "LOCAL_WORLD_SIZE", env.local_world_size);
  const int restart = r.Int("TORCHELASTIC_RESTART_COUNT", 0, 1 << 30, false, 0);
  const char* agent = getenv("TORCHELASTIC_USE_AGENT_STORE");
  if (agent != nullptr && std::strcmp(agent, "True") != 0 && std::strcmp(agent, "False") != 0) {
    r.Fail(std::string("TORCHELASTIC_USE_AGENT_STORE=") + agent + " is neither True nor False");
  }
  env.agent_store = agent != nullptr && std::strcmp(agent, "True") == 0;
  env.store_prefix = std::string("trickbench/") + getenv("TORCHELASTIC_RUN_ID") + "/attempt" +
                     std::to_string(restart);
  return Finish(r, "LOCAL_WORLD_SIZE", "WORLD_SIZE", env);
}

std::optional<LaunchEnv> Mpirun(const Getenv& getenv, std::string* error) {
  Reader r(getenv, "mpirun", error);
  LaunchEnv env;
  env.launcher = Launcher::kMpirun;
  env.rank.rank = r.Int("OMPI_COMM_WORLD_RANK", 0, kMaxWorld, true);
  env.rank.world_size = r.Int("OMPI_COMM_WORLD_SIZE", 1, kMaxWorld, true, 1);
  r.Below("OMPI_COMM_WORLD_RANK", env.rank.rank, "OMPI_COMM_WORLD_SIZE", env.rank.world_size);
  r.Agrees("RANK", "OMPI_COMM_WORLD_RANK", env.rank.rank);
  r.Agrees("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", env.rank.world_size);
  r.Master(&env.rank);
  env.local_rank = r.Int("OMPI_COMM_WORLD_LOCAL_RANK", 0, kMaxWorld, false, 0);
  env.local_world_size =
      r.Int("OMPI_COMM_WORLD_LOCAL_SIZE", 1, kMaxWorld, false, env.rank.world_size);
  r.Below("OMPI_COMM_WORLD_LOCAL_RANK", env.local_rank, "OMPI_COMM_WORLD_LOCAL_SIZE",
          env.local_world_size);
  return Finish(r, "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE", env);
}

std::optional<LaunchEnv> Srun(const Getenv& getenv, int ntasks, std::string* error) {
  Reader r(getenv, "srun", error);
  LaunchEnv env;
  env.launcher = Launcher::kSrun;
  env.rank.world_size = ntasks;
  env.rank.rank = r.Int("SLURM_PROCID", 0, kMaxWorld, true);
  r.Below("SLURM_PROCID", env.rank.rank, "SLURM_NTASKS", ntasks);
  r.Agrees("RANK", "SLURM_PROCID", env.rank.rank);
  r.Agrees("WORLD_SIZE", "SLURM_NTASKS", ntasks);
  r.Master(&env.rank);
  env.local_rank = r.Int("SLURM_LOCALID", 0, kMaxWorld, false, 0);
  // SLURM_NTASKS_PER_NODE is a plain count only when every node has the same; else
  // assume all of them here, which shares the cores the most conservatively.
  const char* per_node = getenv("SLURM_NTASKS_PER_NODE");
  const auto n = ParseEnvInt(per_node, 1, kMaxWorld);
  env.local_world_size = n ? static_cast<int>(*n) : ntasks;
  return Finish(r, "SLURM_NTASKS_PER_NODE", "SLURM_NTASKS", env);
}

std::optional<LaunchEnv> Env(const Getenv& getenv, std::string* error) {
  LaunchEnv env;
  env.launcher = Launcher::kEnv;
  std::string why;
  const auto rank = ParseRankEnv(getenv, &why);
  if (!rank) {
    *error = "TRICKBENCH_LAUNCHER=env: " + why;
    return std::nullopt;
  }
  env.rank = *rank;
  Reader r(getenv, "TRICKBENCH_LAUNCHER=env", error);
  env.local_rank = r.Int("LOCAL_RANK", 0, kMaxWorld, false, 0);
  env.local_world_size = r.Int("LOCAL_WORLD_SIZE", 1, kMaxWorld, false, env.rank.world_size);
  r.Below("LOCAL_RANK", env.local_rank, "LOCAL_WORLD_SIZE", env.local_world_size);
  return Finish(r, "LOCAL_WORLD_SIZE", "WORLD_SIZE", env);
}

}  // namespace

const char* LauncherName(Launcher launcher) {
  switch (launcher) {
    case Launcher::kTorchrun:
      return "torchrun";
    case Launcher::kMpirun:
      return "mpirun";
    case Launcher::kSrun:
      return "srun";
    case Launcher::kEnv:
      return "env";
  }
  return "?";
}

std::optional<LaunchEnv> DetectLauncher(const Getenv& getenv, std::string* error) {
  error->clear();
  if (getenv("TRICKBENCH_RANK_LOCAL") != nullptr) return std::nullopt;
  const char* choice = getenv("TRICKBENCH_LAUNCHER");
  const std::string mode = choice ? choice : "auto";
  if (mode == "none") return std::nullopt;
  if (mode == "env") return Env(getenv, error);
  if (mode != "auto") {
    *error = "TRICKBENCH_LAUNCHER=" + mode + " is not auto, none or env";
    return std::nullopt;
  }
  if (getenv("TORCHELASTIC_RUN_ID") != nullptr) return Torchrun(getenv, error);
  if (getenv("OMPI_COMM_WORLD_RANK") != nullptr) return Mpirun(getenv, error);
  if (getenv("SLURM_PROCID") != nullptr) {
    Reader r(getenv, "srun", error);
    const int ntasks = r.Int("SLURM_NTASKS", 1, kMaxWorld, /*required=*/true, 1);
    if (!r.ok() || ntasks == 1) return std::nullopt;
    return Srun(getenv, ntasks, error);
  }
  return std::nullopt;
}

}  // namespace trickbench::distributed
