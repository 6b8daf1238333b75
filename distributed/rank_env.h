// Where a rank process stands in its group: the RANK / WORLD_SIZE / MASTER_ADDR /
// MASTER_PORT environment that torchrun and c10d use, read and checked.
//
//   std::string error;
//   auto env = trickbench::distributed::ParseRankEnv(std::getenv, &error);
//   if (!env) Fail(error);          // e.g. "RANK=2 is not below WORLD_SIZE=2"
//   Join(env->master_addr, env->master_port);
//
// FreeLoopbackPort() asks the kernel for a port that is free on 127.0.0.1, for a
// group that lives on this machine only.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace trickbench::distributed {

struct RankEnv {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;

  // True when the master address is this machine's loopback (127.x.x.x, localhost):
  // Gloo is then bound to 127.0.0.1 so nothing listens on other interfaces.
  bool loopback() const;
};

// The four variables from `getenv`. All four are required; ranks must be in
// [0, WORLD_SIZE), WORLD_SIZE >= 1, MASTER_PORT in [1, 65535]. On bad input
// returns nullopt and says what is wrong in *error.
std::optional<RankEnv> ParseRankEnv(const std::function<const char*(const char*)>& getenv,
                                    std::string* error);

// A whole decimal integer in [lo, hi] (an environment variable's value), or nullopt for
// null, empty, trailing characters or out of range: the one reading of every rank and
// launcher variable (launcher_env.h too).
std::optional<long> ParseEnvInt(const char* text, long lo, long hi);

// A TCP port nobody listens on at 127.0.0.1 right now (bound to port 0, read, closed).
// Another process may take it before it is used again; callers treat a failed bind of
// the returned port as a startup failure. Throws std::runtime_error when no socket can
// be bound.
int FreeLoopbackPort();

}  // namespace trickbench::distributed
