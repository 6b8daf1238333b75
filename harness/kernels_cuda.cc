// The CUDA half of harness/kernels.cc (compiled only with --config=cuda): the peak
// FLOP/s of the current GPU. For 16-bit tensor-core work, the datasheet's dense figure
// when the device is in harness/gpu_info.cc's table (what the self-test compares with);
// else, and for fp32, FLOP per clock per SM times SMs times the maximum clock. Why not
// the clock formula always: it uses the boost clock, which a GPU under a matmul does not
// hold (an H200: ~1.07 PFLOP/s by the formula, 989 TFLOP/s published).
#include <ATen/cuda/CUDAContext.h>
#include <torch/types.h>
#include <cuda_runtime_api.h>

#include <optional>

#include "harness/gpu_info.h"
#include "harness/kernels_device.h"

namespace trickbench::kernels {

std::optional<double> CudaPeakFlopPerSecond(int device_index, torch::ScalarType dtype) {
  const cudaDeviceProp* prop = at::cuda::getDeviceProperties(device_index);
  if (dtype == torch::kHalf || dtype == torch::kBFloat16) {
    // Dense fp16 and bf16 tensor-core peaks are equal on every part in the table.
    if (const auto published = PublishedPeak(prop->name))
      return published->bf16_dense_tflops * 1e12;
  }
  int clock_khz = 0;  // the maximum (boost) clock; cudaDeviceProp::clockRate is gone in CUDA 13
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device_index) != cudaSuccess ||
      clock_khz <= 0) {
    return std::nullopt;
  }
  const int sm = prop->major * 10 + prop->minor;
  // Dense FLOP per clock per SM, from NVIDIA's architecture whitepapers (datacenter
  // parts; 16-bit inputs with fp32 accumulation). 0 = unknown or unsupported.
  double per_sm_clock = 0;
  if (dtype == torch::kHalf || dtype == torch::kBFloat16) {
    const bool bf16 = dtype == torch::kBFloat16;
    switch (sm) {
      case 70:
      case 72:
      case 75:
        per_sm_clock = bf16 ? 0 : 1024;
        break;  // Volta, Turing
      case 80:
        per_sm_clock = 2048;
        break;  // A100
      case 86:
      case 89:
        per_sm_clock = 1024;
        break;  // A10/A40, L4/L40
      case 90:
        per_sm_clock = 4096;
        break;  // H100/H200
      case 100:
        per_sm_clock = 8192;
        break;  // B200
      default:
        break;
    }
  } else if (dtype == torch::kFloat) {
    switch (sm) {
      case 70:
      case 72:
      case 75:
      case 80:
        per_sm_clock = 128;
        break;  // 64 FP32 cores x FMA
      case 86:
      case 89:
      case 90:
      case 100:
        per_sm_clock = 256;
        break;  // 128 FP32 cores x FMA
      default:
        break;
    }
  }
  if (per_sm_clock == 0) return std::nullopt;
  return per_sm_clock * prop->multiProcessorCount * clock_khz * 1e3;
}

}  // namespace trickbench::kernels
