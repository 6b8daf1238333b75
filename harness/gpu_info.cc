#include "harness/gpu_info.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace trickbench {
namespace {

struct PeakRule {
  std::vector<std::string> tokens;  // lower-case words the name must contain, all of them
  DevicePeak peak;
};

// "NVIDIA A100-SXM4-80GB" -> {"nvidia", "a100", "sxm4", "80gb"}: whole words, so that
// "l4" never matches "L40S" nor "a10" "A100".
std::vector<std::string> Words(const std::string& name) {
  std::vector<std::string> words;
  std::string word;
  for (const char raw : name + " ") {
    const auto c = static_cast<unsigned char>(raw);
    if (std::isalnum(c)) {
      word += static_cast<char>(std::tolower(c));
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  return words;
}

// First match wins, so a more specific name comes before the one it contains
// ("h200 nvl" before "h200"). Sources: NVIDIA's product datasheets (dense figures:
// the datasheets' "with sparsity" numbers are twice these).
const std::vector<PeakRule>& Rules() {
  static const std::vector<PeakRule> rules = {
      {{"b200"}, {"B200", 2250, 8000}},
      {{"h200", "nvl"}, {"H200 NVL", 835, 4800}},
      {{"h200"}, {"H200 SXM 141GB", 989, 4800}},
      {{"h100", "nvl"}, {"H100 NVL", 835, 3900}},
      {{"h100", "pcie"}, {"H100 PCIe 80GB", 756, 2000}},
      {{"h100"}, {"H100 SXM5 80GB", 989, 3350}},
      {{"a100", "80gb", "pcie"}, {"A100 PCIe 80GB", 312, 1935}},
      {{"a100", "80gb"}, {"A100 SXM4 80GB", 312, 2039}},
      {{"a100"}, {"A100 40GB", 312, 1555}},
      {{"l40s"}, {"L40S", 362, 864}},
      {{"l4"}, {"L4", 121, 300}},
  };
  return rules;
}

}  // namespace

std::optional<DevicePeak> PublishedPeak(const std::string& device_name) {
  const std::vector<std::string> words = Words(device_name);
  for (const PeakRule& rule : Rules()) {
    const bool match =
        std::all_of(rule.tokens.begin(), rule.tokens.end(), [&](const std::string& t) {
          return std::find(words.begin(), words.end(), t) != words.end();
        });
    if (match) return rule.peak;
  }
  return std::nullopt;
}

std::string CudaVersionString(int encoded) {
  if (encoded <= 0) return "none";
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

std::string CudnnVersionString(long encoded) {
  if (encoded <= 0) return "none";
  const long major_base = encoded >= 90000 ? 10000 : 1000;
  const long major = encoded / major_base;
  const long rest = encoded % major_base;
  return std::to_string(major) + "." + std::to_string(rest / 100) + "." +
         std::to_string(rest % 100);
}

std::string PeakVerdict(double achieved, std::optional<double> peak, double healthy_share) {
  if (!peak || *peak <= 0) return "unknown";
  return achieved >= healthy_share * *peak ? "ok" : "LOW";
}

}  // namespace trickbench
