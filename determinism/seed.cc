#include "determinism/seed.h"

#include <torch/serialize.h>
#include <torch/utils.h>

#include <ATen/Context.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace trickbench {
namespace {

at::Generator CudaGenerator(int64_t device) {
  return at::globalContext().defaultGenerator(c10::Device(c10::kCUDA, device));
}

torch::Tensor GetState(at::Generator gen) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void SetState(at::Generator gen, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

// SplitMix64's finaliser: every input bit affects every output bit.
uint64_t Mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

torch::Tensor StringToTensor(const std::string& s) {
  return torch::from_blob(const_cast<char*>(s.data()), {static_cast<int64_t>(s.size())},
                          torch::kUInt8)
      .clone();
}

std::string TensorToString(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kUInt8).contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.numel());
}

}  // namespace

std::mt19937_64& HarnessRng() {
  static std::mt19937_64 rng(0);
  return rng;
}

void SeedEverything(uint64_t seed) {
  // torch::manual_seed seeds the CPU generator and, when GPUs are present, every
  // CUDA generator; it skips CUDA on a CPU-only build instead of failing.
  torch::manual_seed(seed);
  // Derived rather than equal, so the harness stream differs from torch's.
  HarnessRng().seed(seed ^ 0x9E3779B97F4A7C15ull);
  std::srand(static_cast<unsigned>(Mix64(seed)));
}

bool RngState::operator==(const RngState& o) const {
  auto same = [](const torch::Tensor& a, const torch::Tensor& b) {
    return a.defined() == b.defined() && (!a.defined() || torch::equal(a, b));
  };
  if (!same(cpu, o.cpu) || cuda.size() != o.cuda.size() || harness != o.harness) return false;
  for (size_t i = 0; i < cuda.size(); ++i) {
    if (!same(cuda[i], o.cuda[i])) return false;
  }
  return true;
}

RngState CaptureRngState() {
  RngState s;
  s.cpu = GetState(at::globalContext().defaultGenerator(c10::kCPU));
  const int64_t devices = torch::cuda::device_count();
  for (int64_t d = 0; d < devices; ++d) s.cuda.push_back(GetState(CudaGenerator(d)));
  std::ostringstream os;
  os << HarnessRng();
  s.harness = os.str();
  return s;
}

void RestoreRngState(const RngState& state) {
  // Validate everything first, so a bad state changes nothing.
  if (!state.cpu.defined()) throw std::invalid_argument("RNG state has no CPU generator state");
  const int64_t devices = torch::cuda::device_count();
  if (static_cast<int64_t>(state.cuda.size()) != devices) {
    throw std::invalid_argument("RNG state holds " + std::to_string(state.cuda.size()) +
                                " CUDA generator states but this process sees " +
                                std::to_string(devices) + " CUDA devices");
  }
  std::mt19937_64 harness;
  std::istringstream is(state.harness);
  is >> harness;
  if (!is) throw std::invalid_argument("RNG state has a malformed harness generator state");
  SetState(at::globalContext().defaultGenerator(c10::kCPU), state.cpu);
  for (int64_t d = 0; d < devices; ++d) SetState(CudaGenerator(d), state.cuda[d]);
  HarnessRng() = harness;
}

void SaveRngState(const RngState& state, const std::string& path) {
  torch::serialize::OutputArchive archive;
  archive.write("cpu", state.cpu);
  archive.write("cuda_count", torch::tensor(static_cast<int64_t>(state.cuda.size())));
  for (size_t i = 0; i < state.cuda.size(); ++i) {
    archive.write("cuda_" + std::to_string(i), state.cuda[i]);
  }
  archive.write("harness", StringToTensor(state.harness));
  archive.save_to(path);
}

RngState LoadRngState(const std::string& path) {
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    RngState s;
    torch::Tensor count, harness;
    archive.read("cpu", s.cpu);
    archive.read("cuda_count", count);
    for (int64_t i = 0; i < count.item<int64_t>(); ++i) {
      s.cuda.emplace_back();
      archive.read("cuda_" + std::to_string(i), s.cuda.back());
    }
    archive.read("harness", harness);
    s.harness = TensorToString(harness);
    return s;
  } catch (const c10::Error& e) {
    throw std::runtime_error("cannot load an RNG state from " + path + ": " +
                             e.what_without_backtrace());
  }
}

uint64_t SampleSeed(uint64_t seed, uint64_t epoch, uint64_t index) {
  return Mix64(Mix64(Mix64(seed) ^ epoch) ^ index);
}

}  // namespace trickbench
