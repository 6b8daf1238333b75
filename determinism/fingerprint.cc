#include "determinism/fingerprint.h"

#include <torch/nn/module.h>

#include <cstdio>
#include <cstring>

namespace trickbench {
namespace {

// FNV-1a, 64 bit: simple, and every byte changes the result.
constexpr uint64_t kFnvOffset = 1469598103934665603ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t Mix(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= kFnvPrime;
  }
  return h;
}

uint64_t MixString(uint64_t h, const std::string& s) {
  const uint64_t n = s.size();
  return Mix(Mix(h, &n, sizeof n), s.data(), s.size());
}

TensorDigest Digest(const std::string& name, const torch::Tensor& t) {
  TensorDigest d;
  d.name = name;
  d.dtype = t.defined() ? std::string(c10::toString(t.scalar_type())) : "undefined";
  if (t.defined()) d.shape = t.sizes().vec();
  d.hash = HashTensor(t);
  return d;
}

}  // namespace

uint64_t HashTensor(const torch::Tensor& t) {
  uint64_t h = kFnvOffset;
  if (!t.defined()) return MixString(h, "undefined");
  h = MixString(h, c10::toString(t.scalar_type()));
  for (int64_t s : t.sizes()) h = Mix(h, &s, sizeof s);
  const torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
  return Mix(h, c.data_ptr(), c.numel() * c.element_size());
}

std::string HashHex(uint64_t hash) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

bool ParseHashHex(const std::string& text, uint64_t* hash) {
  if (text.size() != 16 || text.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return false;
  }
  *hash = std::stoull(text, nullptr, 16);
  return true;
}

std::string Fingerprint::Hex() const { return HashHex(digest); }

Fingerprint FingerprintTensors(const NamedTensors& tensors) {
  Fingerprint f;
  uint64_t h = kFnvOffset;
  for (const auto& [name, t] : tensors) {
    f.tensors.push_back(Digest(name, t));
    h = MixString(h, name);
    h = Mix(h, &f.tensors.back().hash, sizeof(uint64_t));
  }
  f.digest = h;
  return f;
}

Fingerprint FingerprintModule(const torch::nn::Module& module, bool include_grads) {
  NamedTensors named;
  for (const auto& p : module.named_parameters()) {
    named.emplace_back(p.key(), p.value());
    if (include_grads) named.emplace_back(p.key() + ".grad", p.value().grad());
  }
  for (const auto& b : module.named_buffers()) named.emplace_back(b.key(), b.value());
  return FingerprintTensors(named);
}

std::optional<std::string> FirstDifference(const Fingerprint& a, const Fingerprint& b) {
  const size_t n = std::min(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < n; ++i) {
    if (!(a.tensors[i] == b.tensors[i])) return a.tensors[i].name;
  }
  if (a.tensors.size() > n) return a.tensors[n].name + " (only in the first)";
  if (b.tensors.size() > n) return b.tensors[n].name + " (only in the second)";
  return std::nullopt;
}

}  // namespace trickbench
