#include "common/output_dir.h"

#include <cstdlib>
#include <ctime>

namespace trickbench {

std::string RunsRoot() {
  if (const char* env = std::getenv(kRunsDirEnv); env && *env) return env;
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"); ws && *ws) {
    return std::string(ws) + "/runs";
  }
  return "runs";
}

std::string UtcStamp(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[64];
  const std::size_t n = std::strftime(buf, sizeof buf, format, &utc);
  return std::string(buf, n);
}

}  // namespace trickbench
