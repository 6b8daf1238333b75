// What a GPU should be able to do, and how to print CUDA facts: the pure part of the
// GPU path, so that it builds and is tested on a machine without CUDA.
//
//   if (auto peak = trickbench::PublishedPeak("NVIDIA H200")) {
//     double share = achieved_tflops / peak->bf16_dense_tflops;   // 0.75: healthy
//   }
//   trickbench::CudaVersionString(13000);   // "13.0"
//
// The peaks are the vendor's datasheet figures: dense (no 2:4 sparsity) BF16 tensor-core
// TFLOP/s and memory bandwidth in GB/s (10^9 bytes/s). cuBLAS reaches about 70-80% of
// the former on large square matmuls and a device-to-device copy about 80-90% of the
// latter on a healthy, unthrottled GPU; see docs/GPU.md.
#pragma once

#include <optional>
#include <string>

namespace trickbench {

struct DevicePeak {
  std::string model;         // the datasheet's name, e.g. "H100 SXM5 80GB"
  double bf16_dense_tflops;  // dense BF16 tensor-core peak
  double memory_gbps;        // memory bandwidth, GB/s
};

// The published peak for a CUDA device name as cudaGetDeviceProperties reports it
// ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"); empty for a device not in the
// table (the self-test then prints "unknown").
std::optional<DevicePeak> PublishedPeak(const std::string& device_name);

// CUDA encodes versions as 1000*major + 10*minor (cudaDriverGetVersion and friends):
// 12040 -> "12.4". Non-positive values (no driver) -> "none".
std::string CudaVersionString(int encoded);

// cuDNN 9 encodes 10000*major + 100*minor + patch (90100 -> "9.1.0"); cuDNN 8 and older
// 1000*major + 100*minor + patch (8902 -> "8.9.2"). Non-positive -> "none".
std::string CudnnVersionString(long encoded);

// How an achieved figure compares with its peak, for the self-test's table:
// "ok" at or above `healthy_share` of the peak, "LOW" below, "unknown" without a peak.
std::string PeakVerdict(double achieved, std::optional<double> peak, double healthy_share);

}  // namespace trickbench
