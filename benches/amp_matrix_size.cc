// amp_matrix_size (A11): mixed precision's speedup against the size of the matrices.
//
// A11: "NVIDIA reports 3.5x to 25x with mixed precision on tensor-core GPUs" and "in
// general, the larger the matrix, the larger the speedup". One square matmul
// (n x n) @ (n x n) of fp32 tensors, per run, plain (fp32) or under autocast
// (training/autocast.h: Half on CUDA, BFloat16 on the CPU), which casts both inputs per
// call, as AMP does for activations, and returns the 16-bit product.
//
// Cases, the typed axis n. CUDA: n1024 (64 matmuls a run, 137 GFLOP, ~170 us at an
// H200's fp16 peak: one alone is a few microseconds, launch-bound), n4096 (137 GFLOP)
// and n16384 (8.8 TFLOP in fp32, ~130 ms on an H200's fp32 cores). fp32 here is
// IEEE fp32: LibTorch leaves TF32 for cuBLAS matmuls off by default (Inactive() checks
// Context::allowTF32CuBLAS, as the article's baseline is fp32). CPU: n256 and n512, bf16 through
// oneDNN: measured, not graded, since the claim is about tensor cores. Small, because a
// CPU without AVX512-BF16 or AMX runs them far slower than fp32: on an AVX2-only host,
// one thread, n256 took 25 ms against 0.44 ms in fp32 and n1024 2.6 s against 34 ms, so
// an n1024 case alone cost about 110 s of a default run's 10 minutes.
// Graded: the article's figure, 3.5-25x, at the largest size; any speedup at n4096. The
// growth with size itself compares cases, which one setting's claim cannot express: the
// report's per-case speedups show it.
//
// Equivalence, on the product's first 512 rows: the operands are small integers
// (harness/kernels IntegerValued), so the fp32 product is exact and the 16-bit one is it
// rounded once (tensor cores and oneDNN accumulate in fp32): rtol 4e-3, a bf16 rounding
// (2^-8), atol 0.
#include <algorithm>

#include "harness/kernels.h"
#include "harness/trick.h"
#include "training/autocast.h"

namespace {

namespace k = trickbench::kernels;
namespace tr = trickbench::training;

// Matmuls per run: 64 of n1024 on CUDA, so that a run is ~200 us of work, not a launch.
int64_t Reps(const trickbench::Instance& s) {
  return s.device.is_cuda() && s.params.Int("n") <= 1024 ? 64 : 1;
}

class AmpMatrixSize : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    n_ = s.params.Int("n");
    reps_ = Reps(s);
    a_ = k::IntegerValued({n_, n_}, torch::kFloat, device_, 1);
    b_ = k::IntegerValued({n_, n_}, torch::kFloat, device_, 1);
  }

  void Fp32() {
    for (int64_t i = 0; i < reps_; ++i) out_ = a_.mm(b_);
  }

  void Autocast() {
    tr::AutocastGuard autocast(device_.type(), k::LowPrecisionFloat(device_));
    for (int64_t i = 0; i < reps_; ++i) out_ = a_.mm(b_);
  }

  // The first 512 rows: comparing and fingerprinting n16384's whole 1 GiB product on the
  // host would cost more than its runs, and rows are computed alike.
  trickbench::Tensors Result() override {
    return {out_.narrow(0, 0, std::min<int64_t>(n_, 512)).to(torch::kFloat).cpu()};
  }

  std::string Inactive(const std::string& variant) override {
    const torch::ScalarType want =
        variant == "autocast" ? k::LowPrecisionFloat(device_) : torch::kFloat;
    if (out_.scalar_type() != want) {
      return std::string("the product is ") + c10::toString(out_.scalar_type()) + ", expected " +
             c10::toString(want);
    }
    if (variant == "fp32" && device_.is_cuda() && at::globalContext().allowTF32CuBLAS())
      return "TF32 is on for cuBLAS: the fp32 baseline is not IEEE fp32";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"flop_per_run", static_cast<double>(reps_ * k::MatmulFlop(n_, n_, n_))},
            {"matmuls_per_run", static_cast<double>(reps_)}};
  }

  // FLOP: items_per_second is the measured rounds' FLOP/s.
  int64_t ItemsPerRun() const override { return reps_ * k::MatmulFlop(n_, n_, n_); }

 private:
  torch::Device device_ = torch::kCPU;
  int64_t n_ = 0, reps_ = 1;
  torch::Tensor a_, b_, out_;
};

// Per matmul: 2n^3 FLOP; fp32 reads a and b and writes the product (4 bytes each);
// autocast also reads both in fp32 and writes their 16-bit casts, then reads those and
// writes a 16-bit product.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const double n = static_cast<double>(s.params.Int("n")), reps = static_cast<double>(Reps(s));
  const double square = n * n;
  const bool amp = s.variant == "autocast";
  return {.flop = reps * 2 * n * square,
          .bytes = reps * square * (amp ? 2 * 4 + 2 * 2 + 2 * 2 + 2 : 3 * 4),
          .working_set = square * (amp ? 2 * 4 + 3 * 2 : 3 * 4)};
}

}  // namespace

TRICKBENCH_TRICK(amp_matrix_size, AmpMatrixSize)
    .Category("Model architecture and training")
    .Source("A11")
    .Claim("3.5-25x with tensor cores (NVIDIA); the larger the matrix, the larger the speedup")
    .Expect(trickbench::claim::Faster(3.5, 25).ForCase("n16384").OnCuda(
        "tensor cores: NVIDIA's figure, graded at the largest matrix"))
    .Expect(trickbench::claim::Faster().ForCase("n4096").OnCuda(
        "tensor cores; the article gives a figure only for large workloads"))
    .Axis(trickbench::Axis::Int("n", {256, 512}).OnCuda({1024, 4096, 16384}))
    .Work(Work)
    .Variant("fp32", &AmpMatrixSize::Fp32)
    .Variant("autocast", &AmpMatrixSize::Autocast)
    .Tolerance(/*rtol=*/4e-3, /*atol=*/0);
