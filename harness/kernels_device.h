// The device-dependent half of harness/kernels.h: what only a CUDA build can know. Two
// definitions, one per build, chosen at link time (//harness:kernels_device), so that
// kernels.cc compiles the same in both:
//   kernels_cuda.cc    the CUDA runtime's device properties (--config=cuda)
//   kernels_nocuda.cc  nothing known
// Internal to //harness:kernels; callers use kernels::PeakFlopPerSecond.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>

namespace trickbench::kernels {

// Dense peak FLOP/s of CUDA device `device_index` for matmuls in `dtype`, when known.
std::optional<double> CudaPeakFlopPerSecond(int device_index, c10::ScalarType dtype);

}  // namespace trickbench::kernels
