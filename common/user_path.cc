#include "common/user_path.h"

#include <cstdlib>
#include <filesystem>

namespace trickbench {

std::string UserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (!wd || !*wd) return path;
  return (std::filesystem::path(wd) / path).lexically_normal().string();
}

}  // namespace trickbench
