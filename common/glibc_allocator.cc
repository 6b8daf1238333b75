#include "common/glibc_allocator.h"

#include <malloc.h>

#include <stdexcept>

namespace trickbench {
namespace {

struct Thresholds {
  int mmap_bytes, trim_bytes;
};

Thresholds ThresholdsOf(const std::string& regime) {
  if (regime == kReusedPages) return {32 << 20, 512 << 20};
  if (regime == kFreshPages) return {128 << 10, 128 << 10};
  throw std::invalid_argument("allocator regime \"" + regime + "\" is neither \"" +
                              std::string(kReusedPages) + "\" nor \"" + kFreshPages + "\"");
}

std::string Size(int bytes) {
  return bytes >= (1 << 20) ? std::to_string(bytes >> 20) + " MiB"
                            : std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

void ApplyAllocatorRegime(const std::string& regime) {
  const Thresholds t = ThresholdsOf(regime);
  mallopt(M_MMAP_THRESHOLD, t.mmap_bytes);
  mallopt(M_TRIM_THRESHOLD, t.trim_bytes);
}

std::string DescribeAllocatorRegime(const std::string& regime) {
  const Thresholds t = ThresholdsOf(regime);
  return regime + " (glibc mmap threshold " + Size(t.mmap_bytes) + ", trim threshold " +
         Size(t.trim_bytes) + ", fixed)";
}

}  // namespace trickbench
