#include "harness/allocator_regime.h"

#include <malloc.h>

#include <stdexcept>

namespace trickbench {

Axis AllocatorRegimeAxis() {
  return Axis::String(kAllocatorAxis, {kReusedPages, kFreshPages}).OnCuda({""});
}

void ApplyAllocatorRegime(const std::string& regime) {
  // Setting M_MMAP_THRESHOLD also turns glibc's dynamic threshold off, so the regime
  // holds whatever the case frees, until the next case sets its own.
  if (regime == kReusedPages) {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
  } else if (regime == kFreshPages) {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  } else {
    throw std::invalid_argument("allocator regime \"" + regime + "\" is neither \"" +
                                std::string(kReusedPages) + "\" nor \"" + kFreshPages + "\"");
  }
}

void SetUpInstance(Trick& trick, const Instance& instance) {
  if (instance.params.Has(kAllocatorAxis) && !instance.device.is_cuda()) {
    const std::string& regime = instance.params.String(kAllocatorAxis);
    if (!regime.empty()) ApplyAllocatorRegime(regime);
  }
  trick.SetUp(instance);
}

}  // namespace trickbench
