#include "distributed/rank_env.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace trickbench::distributed {
namespace {}  // namespace

bool RankEnv::loopback() const {
  return master_addr == "localhost" || master_addr.rfind("127.", 0) == 0 || master_addr == "::1";
}

std::optional<RankEnv> ParseRankEnv(const std::function<const char*(const char*)>& getenv,
                                    std::string* error) {
  auto bad = [&](const std::string& what) {
    *error = what;
    return std::nullopt;
  };
  for (const char* name : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) {
    if (getenv(name) == nullptr) return bad(std::string(name) + " is not set");
  }
  RankEnv env;
  const auto world = ParseEnvInt(getenv("WORLD_SIZE"), 1, 1 << 16);
  if (!world)
    return bad("WORLD_SIZE=" + std::string(getenv("WORLD_SIZE")) + " is not a count >= 1");
  env.world_size = static_cast<int>(*world);
  const auto rank = ParseEnvInt(getenv("RANK"), 0, 1 << 16);
  if (!rank) return bad("RANK=" + std::string(getenv("RANK")) + " is not a rank >= 0");
  if (*rank >= env.world_size) {
    return bad("RANK=" + std::to_string(*rank) +
               " is not below WORLD_SIZE=" + std::to_string(env.world_size));
  }
  env.rank = static_cast<int>(*rank);
  env.master_addr = getenv("MASTER_ADDR");
  if (env.master_addr.empty()) return bad("MASTER_ADDR is empty");
  const auto port = ParseEnvInt(getenv("MASTER_PORT"), 1, 65535);
  if (!port)
    return bad("MASTER_PORT=" + std::string(getenv("MASTER_PORT")) + " is not a port in 1..65535");
  env.master_port = static_cast<int>(*port);
  return env;
}

std::optional<long> ParseEnvInt(const char* text, long lo, long hi) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return std::nullopt;
  return v;
}

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    throw std::runtime_error("no free port on 127.0.0.1: " + why);
  }
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace trickbench::distributed
