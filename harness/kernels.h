// Kernel arithmetic shared by the kernel and size tricks (fuse_pointwise,
// elementwise_cost, depthwise_mac, tensor_core_multiples, batch_size_multiple,
// batch_small_ops, low_precision_inference): FLOP and byte counts, a small timer for
// achieved FLOP/s and bytes/s counters, the device's peak where it is known, and
// operands whose matmul is exact in any summation order.
//
//   namespace k = trickbench::kernels;
//   auto a = k::IntegerValued({64, 4095}, torch::kBFloat16, device);
//   auto b = k::IntegerValued({4095, 256}, torch::kBFloat16, device);
//   const double s = k::MedianSecondsPerRun([&] { a.mm(b); }, device);
//   auto counters = k::RateCounters(k::MatmulFlop(64, 4095, 256), k::Bytes({a, b, a.mm(b)}),
//                                   s, device, torch::kBFloat16);
//   // counters["achieved_flop_per_s"], and on a known GPU counters["fraction_of_peak"]
//
// Why the timer: the trick contract's Counters() are plain numbers read after the
// checks, and Google Benchmark's rate counters are not reachable from a trick. A trick
// that wants named FLOP/s and bytes/s counters times its own body briefly here; the
// authoritative time is still the paired rounds' (with ItemsPerRun = FLOP per run, the
// Google Benchmark export's items_per_second is the measured rounds' FLOP/s).
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trickbench::kernels {

// (m x k) @ (k x n): one multiply and one add per term, 2mkn. Throws on a negative size.
int64_t MatmulFlop(int64_t m, int64_t k, int64_t n);

// A 2-D convolution producing (batch, out_channels, out_h, out_w) from kernels of
// kernel_h x kernel_w over in_channels_per_group inputs (in_channels / groups):
// 2 FLOP per multiply-accumulate. Bias and padding zeros are not discounted.
int64_t Conv2dFlop(int64_t batch, int64_t out_channels, int64_t out_h, int64_t out_w,
                   int64_t in_channels_per_group, int64_t kernel_h, int64_t kernel_w);

// The bytes a kernel must at least move: each tensor (inputs and outputs) once.
// Undefined tensors count zero.
int64_t Bytes(const std::vector<torch::Tensor>& tensors);

// Median wall time of one call of `fn` over at least `min_runs` calls and at least
// `min_seconds` in all, after one untimed call; waits for the CUDA device after each
// call when `device` is CUDA. Throws std::invalid_argument on min_runs < 1.
double MedianSecondsPerRun(const std::function<void()>& fn, const torch::Device& device,
                           double min_seconds = 0.05, int min_runs = 3);

// Dense peak FLOP/s of `device` for matmuls in `dtype`, when known: on CUDA, SM count x
// clock x FLOP per clock per SM of the architecture (tensor cores for Half/BFloat16,
// CUDA cores for Float); std::nullopt on CPU (no portable source for it) and on GPUs
// not in the table.
std::optional<double> PeakFlopPerSecond(const torch::Device& device, torch::ScalarType dtype);

// Counters for one run doing `flop` FLOP and moving `bytes` bytes in `seconds`:
// flop_per_run, bytes_per_run, flop_per_byte, achieved_flop_per_s, achieved_bytes_per_s,
// and, where PeakFlopPerSecond knows the device, peak_flop_per_s and fraction_of_peak.
// Throws std::invalid_argument when seconds <= 0 or flop or bytes < 0.
std::map<std::string, double> RateCounters(double flop, double bytes, double seconds,
                                           const torch::Device& device, torch::ScalarType dtype);

// The 16-bit float type a device runs fast: BFloat16 on CPU (autocast's CPU type),
// Half on CUDA (tensor cores, autocast's CUDA default).
torch::ScalarType LowPrecisionFloat(const torch::Device& device);

// Seeded integers in [-max_abs, max_abs] stored as `dtype`. A matmul of such operands
// with fp32 accumulation is exact whatever the summation order (while every partial sum
// stays below 2^24), so two kernels that block the sum differently agree bitwise, even
// in BFloat16 and Half output (the exact sum is rounded once). Throws on max_abs < 1.
torch::Tensor IntegerValued(at::IntArrayRef sizes, torch::ScalarType dtype,
                            const torch::Device& device, int64_t max_abs = 2);

// The smallest multiple of `multiple` that is >= n. Throws on n < 0 or multiple < 1.
int64_t RoundUp(int64_t n, int64_t multiple);

// `t` with dimension `dim` zero-padded at the end to `size` (a copy, contiguous).
// Throws std::invalid_argument when size is smaller than t.size(dim).
torch::Tensor ZeroPad(const torch::Tensor& t, int64_t dim, int64_t size);

}  // namespace trickbench::kernels
