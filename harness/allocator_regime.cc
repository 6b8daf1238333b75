#include "harness/allocator_regime.h"

namespace trickbench {

Axis AllocatorRegimeAxis() {
  return Axis::String(kAllocatorAxis, {kReusedPages, kFreshPages}).OnCuda({""});
}

void SetUpInstance(Trick& trick, const Instance& instance) {
  std::string regime = kDefaultAllocatorRegime;
  if (instance.params.Has(kAllocatorAxis) && !instance.device.is_cuda() &&
      !instance.params.String(kAllocatorAxis).empty())
    regime = instance.params.String(kAllocatorAxis);
  ApplyAllocatorRegime(regime);
  trick.SetUp(instance);
}

}  // namespace trickbench
