// gpu_selftest: is this GPU healthy enough to trust trick results from it? Measures a
// large BF16 matmul (cuBLAS, TFLOP/s) and a device-to-device copy (GB/s) and prints them
// against the device's published peak (harness/gpu_info.h), with a verdict.
//
//   build/gpu_selftest                        # the table
//   build/gpu_selftest --out=selftest.json    # and the figures as JSON
//
// A share well under the usual one (cuBLAS ~70-80% of the dense BF16 peak, a copy
// ~80-90% of the memory bandwidth) points at clocks held low, power capping, another
// process on the GPU, or a PCIe/MIG slice: fix that before reading any trick's numbers.
//
// Exit status: 0 measured (the verdicts are in the table), 1 a CUDA error,
// 2 bad command line, or no CUDA (a build without it, or no device).
#include <torch/types.h>
#include <torch/cuda.h>
#include <torch/utils.h>
#include <torch/version.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/flags.h"
#include "common/user_path.h"
#include "harness/context.h"
#include "harness/gpu_info.h"
#include "harness/timing.h"

namespace {

using json = nlohmann::ordered_json;

constexpr char kUsage[] = R"(usage: gpu_selftest [--out=PATH]

Measures BF16 matmul TFLOP/s and device-to-device copy GB/s on CUDA device 0 and
prints them against the device's published peak.

)";

// Healthy shares of the published peak (docs/GPU.md): below these, something is wrong
// with the GPU or its settings rather than with a trick.
constexpr double kMatmulHealthyShare = 0.5;
constexpr double kCopyHealthyShare = 0.6;

// The CUDA timing backend (harness/cuda_backend_cuda.cc) is linked into CUDA builds
// only: its events time the device work, its context says what the device is.
constexpr char kCudaBackend[] = "cuda_events";

// Best of `trials` event-timed batches of `iters` calls: the best shows what the device
// can do; a busy or throttled GPU drags every batch down, not just one.
template <typename Fn>
double BestSeconds(const trickbench::TimingBackend& cuda, int iters, int trials, Fn fn) {
  const auto timer = cuda.NewIntervalTimer();
  for (int i = 0; i < 3; ++i) fn();  // warm-up: cuBLAS handle, heuristics, clocks
  double best = 1e30;
  for (int t = 0; t < trials; ++t) {
    timer->Start();
    for (int i = 0; i < iters; ++i) fn();
    best = std::min(best, timer->StopSeconds() / iters);
  }
  return best;
}

json Measure() {
  const torch::Device device(torch::kCUDA, 0);
  const auto cuda = trickbench::TimingBackends::For(device);
  trickbench::Context device_facts;
  cuda->AddContext(&device_facts);
  json out;
  std::string name;
  for (const auto& [k, v] : device_facts) {
    if (k == "cuda_context_error") throw std::runtime_error(v);
    if (k == "cuda_device_name") name = v;
    out["context"][k] = v;
  }
  out["context"]["torch_version"] = TORCH_VERSION;

  // 8192^3: large enough for cuBLAS to reach its plateau on every data-center GPU,
  // ~1.1 TFLOP per call, a few ms.
  const int64_t n = 8192;
  torch::manual_seed(0);
  const auto opts = torch::TensorOptions().device(device).dtype(torch::kBFloat16);
  auto a = torch::randn({n, n}, opts), b = torch::randn({n, n}, opts),
       c = torch::empty({n, n}, opts);
  const double mm_s = BestSeconds(*cuda, 10, 5, [&] { torch::mm_out(c, a, b); });
  const double tflops = 2.0 * n * n * n / mm_s / 1e12;
  a = b = c = torch::Tensor();

  // 512 MiB each way; a copy reads and writes every byte, so it moves twice the size
  // (the convention of CUDA's bandwidthTest and nvbandwidth for device-to-device).
  const int64_t bytes = int64_t{512} << 20;
  auto src =
      torch::empty({bytes}, torch::TensorOptions().device(device).dtype(torch::kUInt8)).fill_(1);
  auto dst = torch::empty_like(src);
  const double copy_s = BestSeconds(*cuda, 10, 5, [&] { dst.copy_(src); });
  const double gbps = 2.0 * static_cast<double>(bytes) / copy_s / 1e9;

  const auto peak = trickbench::PublishedPeak(name);
  const std::optional<double> peak_tflops =
      peak ? std::optional<double>(peak->bf16_dense_tflops) : std::nullopt;
  const std::optional<double> peak_gbps =
      peak ? std::optional<double>(peak->memory_gbps) : std::nullopt;
  out["device"] = name;
  out["published_model"] = peak ? json(peak->model) : json(nullptr);
  out["matmul"] = {{"what", "bf16 mm " + std::to_string(n) + "^3 (cuBLAS)"},
                   {"seconds_per_call", mm_s},
                   {"tflops", tflops},
                   {"peak_tflops", peak_tflops ? json(*peak_tflops) : json(nullptr)},
                   {"share_of_peak", peak_tflops ? json(tflops / *peak_tflops) : json(nullptr)},
                   {"healthy_share", kMatmulHealthyShare},
                   {"verdict", trickbench::PeakVerdict(tflops, peak_tflops, kMatmulHealthyShare)}};
  out["copy"] = {{"what", "device-to-device copy, 512 MiB"},
                 {"seconds_per_call", copy_s},
                 {"gbps", gbps},
                 {"peak_gbps", peak_gbps ? json(*peak_gbps) : json(nullptr)},
                 {"share_of_peak", peak_gbps ? json(gbps / *peak_gbps) : json(nullptr)},
                 {"healthy_share", kCopyHealthyShare},
                 {"verdict", trickbench::PeakVerdict(gbps, peak_gbps, kCopyHealthyShare)}};
  return out;
}

void PrintTable(const json& r) {
  const json& ctx = r["context"];
  std::printf(
      "gpu_selftest: %s (cc %s, %s SMs, %.1f GB, L2 %.0f MB), driver %s, runtime %s, cuDNN %s, "
      "LibTorch %s\n",
      r["device"].get<std::string>().c_str(), ctx.value("cuda_compute_capability", "?").c_str(),
      ctx.value("cuda_sm_count", "?").c_str(),
      std::stod(ctx.value("cuda_total_memory_bytes", "0")) / 1e9,
      std::stod(ctx.value("cuda_l2_cache_bytes", "0")) / 1e6,
      ctx.value("cuda_driver_version", "?").c_str(), ctx.value("cuda_runtime_version", "?").c_str(),
      ctx.value("cudnn_version", "?").c_str(), ctx.value("torch_version", "?").c_str());
  std::printf("  published peak: %s\n", r["published_model"].is_null()
                                            ? "unknown (device not in harness/gpu_info.cc)"
                                            : r["published_model"].get<std::string>().c_str());
  std::printf("  %-34s %14s %14s %7s  %s\n", "measure", "achieved", "peak", "share", "verdict");
  auto row = [](const json& m, const char* value_key, const char* peak_key, const char* unit) {
    char achieved[32], peak[32], share[16];
    std::snprintf(achieved, sizeof achieved, "%.1f %s", m[value_key].get<double>(), unit);
    if (m[peak_key].is_null()) {
      std::snprintf(peak, sizeof peak, "unknown");
      std::snprintf(share, sizeof share, "-");
    } else {
      std::snprintf(peak, sizeof peak, "%.0f %s", m[peak_key].get<double>(), unit);
      std::snprintf(share, sizeof share, "%.0f%%", 100 * m["share_of_peak"].get<double>());
    }
    std::printf("  %-34s %14s %14s %7s  %s (healthy >= %.0f%%)\n",
                m["what"].get<std::string>().c_str(), achieved, peak, share,
                m["verdict"].get<std::string>().c_str(), 100 * m["healthy_share"].get<double>());
  };
  row(r["matmul"], "tflops", "peak_tflops", "TFLOP/s");
  row(r["copy"], "gbps", "peak_gbps", "GB/s");
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  bool help = false;
  std::string error;
  trickbench::Flags flags("gpu_selftest");
  flags.String("out", &out, "also write the figures as JSON (atomically)")
      .Bool("help", &help, "this text");
  if (!flags.Parse(std::vector<std::string>(argv + 1, argv + argc), &error)) {
    std::cerr << "gpu_selftest: " << error << "\n";
    return 2;
  }
  if (help) {
    std::cout << kUsage << flags.Help();
    return 0;
  }
  out = trickbench::UserPath(out);  // the caller's folder under `bazel run`
  if (!out.empty() && !trickbench::CheckWritable(out, &error)) {
    std::cerr << "gpu_selftest: bad --out: " << error << "\n";
    return 2;
  }
  if (!trickbench::TimingBackends::Find(kCudaBackend)) {
    std::cerr << "gpu_selftest: this build has no CUDA support (no CUDA timing backend linked: "
                 "use Bazel --config=cuda or CMake with a CUDA LibTorch); nothing to measure\n";
    return 2;
  }
  if (!torch::cuda::is_available()) {
    std::cerr << "gpu_selftest: no CUDA device visible (torch::cuda::is_available() is false; "
                 "check nvidia-smi and CUDA_VISIBLE_DEVICES)\n";
    return 2;
  }
  json result;
  try {
    result = Measure();
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::cerr << "gpu_selftest: " << what.substr(0, what.find('\n')) << "\n";
    return 1;
  }
  PrintTable(result);
  if (!out.empty() && !trickbench::WriteFileAtomically(out, result.dump(2) + "\n", &error)) {
    std::cerr << "gpu_selftest: " << error << "\n";
    return 1;
  }
  return 0;
}
