#include "common/host.h"

#include <unistd.h>

#include <fstream>

namespace trickbench {

std::string HostName() {
  char buf[256] = {0};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

}  // namespace trickbench
