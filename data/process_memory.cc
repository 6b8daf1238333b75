#include "data/process_memory.h"

#include <fstream>
#include <string>

namespace trickbench::data {
namespace {

int64_t StatusKilobytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1)) * 1024;
  }
  return -1;
}

}  // namespace

int64_t CurrentRssBytes() { return StatusKilobytes("VmRSS"); }
int64_t PeakRssBytes() { return StatusKilobytes("VmHWM"); }

bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace trickbench::data
