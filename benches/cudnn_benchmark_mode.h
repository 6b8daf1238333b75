// cudnn.benchmark as a cudnn_benchmark* trick's body sets it, and the evidence of it for
// Inactive(): the one rule both tricks follow.
//
//   trickbench::CudnnBenchmarkMode mode_;
//   void Run(bool autotune) { mode_.Apply(autotune); ... convolutions ... }
//   std::string Inactive(const std::string& v) override { return mode_.Inactive(v); }
//
// Why the body sets it, not SetUp: the flag is process-wide and the paired rounds
// interleave the variants, so each body must set its own before its convolutions. Why
// deterministic mode wins: benchmark mode picks algorithms by timing them, which makes
// the choice, and so the result, vary between runs; a run under the determinism guard
// keeps it off, and Inactive() then says so instead of calling the trick not applied.
#pragma once

#include <ATen/Context.h>

#include <string>

namespace trickbench {

class CudnnBenchmarkMode {
 public:
  // At the start of a body: benchmark mode on for `autotune`, unless deterministic mode
  // is on; records what the body then runs under.
  void Apply(bool autotune) {
    deterministic_ =
        at::globalContext().deterministicCuDNN() || at::globalContext().deterministicAlgorithms();
    at::globalContext().setBenchmarkCuDNN(autotune && !deterministic_);
    benchmark_ = at::globalContext().benchmarkCuDNN();
  }

  // Whether the last body ran as `variant` asks: "autotuned" with benchmark mode on,
  // "default_algorithms" with it off. "" when it did.
  std::string Inactive(const std::string& variant) const {
    if (variant == "autotuned" && !benchmark_) {
      return deterministic_ ? "benchmark mode kept off: deterministic mode is on"
                            : "benchmark mode was off during the body";
    }
    if (variant == "default_algorithms" && benchmark_) return "benchmark mode was on";
    return "";
  }

  bool deterministic() const { return deterministic_; }

 private:
  bool benchmark_ = false, deterministic_ = false;
};

}  // namespace trickbench
