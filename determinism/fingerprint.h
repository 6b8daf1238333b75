// Fingerprints: a 64-bit hash of tensors' exact bytes, to tell bitwise-equal runs apart.
//
// Two runs are reproducible when their fingerprints are equal; when they are not,
// FirstDifference names the first tensor that differs:
//
//   auto a = trickbench::FingerprintModule(*model_a, /*include_grads=*/true);
//   auto b = trickbench::FingerprintModule(*model_b, /*include_grads=*/true);
//   if (a != b) std::cerr << "diverged at " << *trickbench::FirstDifference(a, b);
//
// The hash covers dtype, shape and every byte of the values, so a one-ulp change in
// one weight changes it. It is not cryptographic.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "third_party/libtorch/forward.h"

namespace trickbench {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

struct TensorDigest {
  std::string name;
  std::string dtype;  // "undefined" for an undefined tensor (e.g. a grad set to none)
  std::vector<int64_t> shape;
  uint64_t hash = 0;

  bool operator==(const TensorDigest& o) const {
    return name == o.name && dtype == o.dtype && shape == o.shape && hash == o.hash;
  }
};

struct Fingerprint {
  std::vector<TensorDigest> tensors;
  uint64_t digest = 0;  // hash of all of the above, in order

  std::string Hex() const;  // 16 hex digits of digest
  bool operator==(const Fingerprint& o) const { return digest == o.digest && tensors == o.tensors; }
  bool operator!=(const Fingerprint& o) const { return !(*this == o); }
};

// Hash of one tensor's dtype, shape and bytes (moved to CPU, made contiguous).
uint64_t HashTensor(const torch::Tensor& t);

// A hash as 16 lower-case hex digits: how fingerprints print and trace files write them.
std::string HashHex(uint64_t hash);
// The inverse: false for anything but exactly 16 lower-case hex digits.
bool ParseHashHex(const std::string& text, uint64_t* hash);

Fingerprint FingerprintTensors(const NamedTensors& tensors);

// Parameters and buffers by name; with include_grads, every parameter's grad too
// (named "<param>.grad"; an undefined grad hashes as such).
Fingerprint FingerprintModule(const torch::nn::Module& module, bool include_grads);

// The name of the first tensor whose digest differs, or that only one side has;
// nullopt when the fingerprints are equal.
std::optional<std::string> FirstDifference(const Fingerprint& a, const Fingerprint& b);

}  // namespace trickbench
