// NVTX ranges for Nsight Systems, free when NVTX is absent.
//
//   {
//     trickbench::NvtxRange range("channels_last/optimized");
//     RunStep();
//   }   // the range closes here
//
// With NVTX3 headers found at build time (CUDA_HOME or /usr/local/cuda, see
// third_party/cuda) TRICKBENCH_HAVE_NVTX is defined and ranges are pushed and
// popped; otherwise the class is empty and compiles to nothing.
#pragma once

#include <string>

#ifdef TRICKBENCH_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace trickbench {

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) {
#ifdef TRICKBENCH_HAVE_NVTX
    nvtxRangePushA(name.c_str());
#else
    (void)name;
#endif
  }
  ~NvtxRange() {
#ifdef TRICKBENCH_HAVE_NVTX
    nvtxRangePop();
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

  static constexpr bool enabled() {
#ifdef TRICKBENCH_HAVE_NVTX
    return true;
#else
    return false;
#endif
  }
};

}  // namespace trickbench
