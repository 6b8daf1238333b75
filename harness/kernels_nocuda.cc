// The CPU build's twin of harness/kernels_cuda.cc: without the CUDA path no device
// peak is known (a CUDA device cannot be used by this build anyway).
#include <optional>

#include "harness/kernels_device.h"

namespace trickbench::kernels {

std::optional<double> CudaPeakFlopPerSecond(int, c10::ScalarType) { return std::nullopt; }

}  // namespace trickbench::kernels
