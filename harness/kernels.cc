#include "harness/kernels.h"

#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "harness/kernels_device.h"

namespace trickbench::kernels {

namespace {
void RequireNonNegative(const char* what, int64_t v) {
  if (v < 0) {
    throw std::invalid_argument(std::string(what) + " must be >= 0, got " + std::to_string(v));
  }
}
}  // namespace

int64_t MatmulFlop(int64_t m, int64_t k, int64_t n) {
  RequireNonNegative("m", m);
  RequireNonNegative("k", k);
  RequireNonNegative("n", n);
  return 2 * m * k * n;
}

int64_t Conv2dFlop(int64_t batch, int64_t out_channels, int64_t out_h, int64_t out_w,
                   int64_t in_channels_per_group, int64_t kernel_h, int64_t kernel_w) {
  for (const auto& [what, v] : {std::pair<const char*, int64_t>{"batch", batch},
                                {"out_channels", out_channels},
                                {"out_h", out_h},
                                {"out_w", out_w},
                                {"in_channels_per_group", in_channels_per_group},
                                {"kernel_h", kernel_h},
                                {"kernel_w", kernel_w}}) {
    RequireNonNegative(what, v);
  }
  return 2 * batch * out_channels * out_h * out_w * in_channels_per_group * kernel_h * kernel_w;
}

int64_t Bytes(const std::vector<torch::Tensor>& tensors) {
  int64_t bytes = 0;
  for (const auto& t : tensors) {
    if (t.defined()) bytes += t.numel() * static_cast<int64_t>(t.element_size());
  }
  return bytes;
}

double MedianSecondsPerRun(const std::function<void()>& fn, const torch::Device& device,
                           double min_seconds, int min_runs) {
  if (min_runs < 1) throw std::invalid_argument("min_runs must be >= 1");
  auto wait = [&] {
    if (device.is_cuda()) torch::cuda::synchronize(device.index());
  };
  fn();  // untimed: lazy initialisation, first-touch page faults
  wait();
  std::vector<double> seconds;
  double total = 0;
  while (static_cast<int>(seconds.size()) < min_runs || total < min_seconds) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    wait();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    seconds.push_back(s);
    total += s;
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  return n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
}

std::optional<double> PeakFlopPerSecond(const torch::Device& device, torch::ScalarType dtype) {
  if (!device.is_cuda()) return std::nullopt;
  return CudaPeakFlopPerSecond(device.has_index() ? device.index() : 0, dtype);
}

std::map<std::string, double> RateCounters(double flop, double bytes, double seconds,
                                           const torch::Device& device, torch::ScalarType dtype) {
  if (!(seconds > 0)) throw std::invalid_argument("seconds must be > 0");
  if (flop < 0 || bytes < 0) throw std::invalid_argument("flop and bytes must be >= 0");
  std::map<std::string, double> c = {
      {"flop_per_run", flop},
      {"bytes_per_run", bytes},
      {"flop_per_byte", bytes > 0 ? flop / bytes : 0},
      {"achieved_flop_per_s", flop / seconds},
      {"achieved_bytes_per_s", bytes / seconds},
  };
  if (const auto peak = PeakFlopPerSecond(device, dtype)) {
    c["peak_flop_per_s"] = *peak;
    c["fraction_of_peak"] = flop / seconds / *peak;
  }
  return c;
}

torch::ScalarType LowPrecisionFloat(const torch::Device& device) {
  return device.is_cuda() ? torch::kHalf : torch::kBFloat16;
}

torch::Tensor IntegerValued(at::IntArrayRef sizes, torch::ScalarType dtype,
                            const torch::Device& device, int64_t max_abs) {
  if (max_abs < 1) throw std::invalid_argument("max_abs must be >= 1");
  return torch::randint(-max_abs, max_abs + 1, sizes, torch::kFloat).to(device, dtype);
}

int64_t RoundUp(int64_t n, int64_t multiple) {
  RequireNonNegative("n", n);
  if (multiple < 1) throw std::invalid_argument("multiple must be >= 1");
  return (n + multiple - 1) / multiple * multiple;
}

torch::Tensor ZeroPad(const torch::Tensor& t, int64_t dim, int64_t size) {
  const int64_t d = dim < 0 ? dim + t.dim() : dim;
  if (d < 0 || d >= t.dim()) throw std::invalid_argument("dim out of range");
  if (size < t.size(d)) {
    throw std::invalid_argument("cannot pad dimension of size " + std::to_string(t.size(d)) +
                                " down to " + std::to_string(size));
  }
  std::vector<int64_t> shape = t.sizes().vec();
  shape[d] = size;
  torch::Tensor out = torch::zeros(shape, t.options());
  out.narrow(d, 0, t.size(d)).copy_(t);
  return out;
}

}  // namespace trickbench::kernels
