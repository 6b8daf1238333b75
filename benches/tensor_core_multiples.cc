// tensor_core_multiples (A9): matmul dims that are multiples of 8.
//
// The article's dims, each as one matmul (m x k) @ (k x n), unaligned vs padded with
// zeros to the next multiple of 8 (which is what the trick is: declare the layer 8-wide
// multiples, mask or ignore the extra outputs or samples):
//   vocab33708  n, the output (vocabulary) size of a Linear layer's forward, x @ W^T
//               with W [n, k] as the layer holds it: 33708 -> 33712
//   batch4084   k, the batch, in a weight-gradient GEMM: 4084 -> 4088
//   batch4095   k, the batch, in a weight-gradient GEMM: 4095 -> 4096
// each in fp32 and in 16-bit (the "_16bit" cases: BFloat16 on CPU, which this build
// runs through oneDNN; Half on CUDA, for tensor cores).
// The batch cases are dW = dY^T @ X of a Linear layer's backward, as autograd calls it:
// dY [batch, out] and X [batch, in] contiguous, dY^T a transposed view, so the batch is
// the reduction dimension while both leading dimensions (out, in) stay aligned. That is
// where a batch size's alignment reaches a GEMM's k; in the forward it is m, on which
// no leading dimension depends (batch_size_multiple times the whole step). The padding
// is zero rows of both dY and X: zero terms in every sum.
//
// The other dims (ProblemOf), chosen so a run stays well under 100 ms on a loaded
// 2-core CPU and the six cases fit the 60 s default run (~0.27 GFLOP; on one thread
// here, fp32: vocab ~14 ms, batch ~4 ms):
//   CPU   vocab: m = 8 tokens, k = 512 hidden;  batch: dW [128 x 256] (m = out, n = in)
//   CUDA  vocab: m = 4096, k = 4096;             batch: dW [4096 x 4096]
// (the article's setting, a 4096-wide layer, where the GPU is busy enough to show it).
// On an H200 (~790 TFLOP/s fp16 dense, ~60 TFLOP/s fp32 without tensor cores) at peak:
// vocab 1.13 TFLOP per run, ~1.4 ms in Half, ~19 ms in fp32; batch 137 GFLOP per run,
// ~0.17 ms in Half, ~2.3 ms in fp32: GPU work, not launch latency.
// Counters: achieved FLOP/s of the shape actually computed, and on a GPU in the table of
// harness/kernels the fraction of the device's peak, timed by wall clock. ItemsPerRun is
// the useful FLOP (the unaligned problem's), so items_per_second (wall time) is the
// useful FLOP/s of the measured runs.
//
// Tensor cores are a GPU feature; on a CPU the article predicts nothing, and a small
// effect either way (SIMD width, cache blocking) is what to expect.
//
// Equivalence: operands are small integers (harness/kernels IntegerValued), so every
// sum is exact in fp32 accumulation and the padded zeros change nothing: results are
// bitwise equal on CPU, in bf16 too (the exact sum is rounded once). Tolerance rtol 2e-3
// (two fp16 ulps) allows for cuBLAS's reduced-precision fp16 reductions on a GPU.
#include "harness/kernels.h"
#include "harness/trick.h"

namespace {

namespace k = trickbench::kernels;

struct Shape {
  int64_t m, k, n;
};

// The problem's (unaligned) shape, by the "dim" axis and the device: the one place SetUp
// and Work size a case from.
Shape ProblemOf(const trickbench::Instance& s) {
  const std::string& dim = s.params.String("dim");
  const bool gpu = s.device.is_cuda();
  if (dim == "vocab33708") return gpu ? Shape{4096, 4096, 33708} : Shape{8, 512, 33708};
  const int64_t batch = dim == "batch4084" ? 4084 : 4095;
  return gpu ? Shape{4096, batch, 4096} : Shape{128, batch, 256};
}

// The padded shape: n (vocab) or k (batch) rounded up to a multiple of 8.
Shape AlignedOf(const trickbench::Instance& s) {
  const Shape p = ProblemOf(s);
  if (s.params.String("dim") == "vocab33708") return {p.m, p.k, k::RoundUp(p.n, 8)};
  return {p.m, k::RoundUp(p.k, 8), p.n};
}

torch::ScalarType DtypeOf(const trickbench::Instance& s) {
  return s.params.String("precision") == "16bit" ? k::LowPrecisionFloat(s.device) : torch::kFloat;
}

class TensorCoreMultiples : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    dtype_ = DtypeOf(s);
    problem_ = ProblemOf(s);
    aligned_ = AlignedOf(s);
    if (s.params.String("dim") == "vocab33708") {
      a_ = k::IntegerValued({problem_.m, problem_.k}, dtype_, device_);
      a_aligned_ = a_;
      // The weight as a Linear layer holds it, [n, k], used transposed (x @ W^T).
      const torch::Tensor weight = k::IntegerValued({problem_.n, problem_.k}, dtype_, device_);
      b_ = weight.t();
      b_aligned_ = k::ZeroPad(weight, 0, aligned_.n).t();
    } else {
      const int64_t batch = problem_.k;
      const torch::Tensor dy = k::IntegerValued({batch, problem_.m}, dtype_, device_);
      b_ = k::IntegerValued({batch, problem_.n}, dtype_, device_);
      // Padded before transposing, so both variants' dY^T is a transposed view of a
      // contiguous [batch, out] tensor, as autograd passes it.
      a_ = dy.t();
      a_aligned_ = k::ZeroPad(dy, 0, aligned_.k).t();
      b_aligned_ = k::ZeroPad(b_, 0, aligned_.k);
    }
  }

  void Unaligned() {
    out_ = a_.mm(b_);
    computed_ = problem_;
  }

  void Aligned() {
    out_ = a_aligned_.mm(b_aligned_);
    computed_ = aligned_;
  }

  trickbench::Tensors Result() override {
    return {out_.narrow(0, 0, problem_.m).narrow(1, 0, problem_.n)};
  }

  std::string Inactive(const std::string& variant) override {
    if (out_.scalar_type() != dtype_) {
      return std::string("output dtype is ") + c10::toString(out_.scalar_type()) + ", expected " +
             c10::toString(dtype_);
    }
    const bool multiples = computed_.m % 8 == 0 && computed_.k % 8 == 0 && computed_.n % 8 == 0;
    if (variant == "aligned8" && !multiples) return "computed shape is not a multiple of 8";
    if (variant == "unaligned" && multiples) return "computed shape is already a multiple of 8";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const torch::Tensor a = variant == "aligned8" ? a_aligned_ : a_;
    const torch::Tensor b = variant == "aligned8" ? b_aligned_ : b_;
    const double seconds = k::MedianSecondsPerRun([a, b] { auto y = a.mm(b); }, device_);
    auto c =
        k::RateCounters(static_cast<double>(k::MatmulFlop(computed_.m, computed_.k, computed_.n)),
                        k::Bytes({a, b, out_}), seconds, device_, dtype_);
    c["m"] = computed_.m;
    c["k"] = computed_.k;
    c["n"] = computed_.n;
    c["useful_flop_per_run"] = ItemsPerRun();
    return c;
  }

  int64_t ItemsPerRun() const override { return k::MatmulFlop(problem_.m, problem_.k, problem_.n); }

 private:
  torch::Device device_ = torch::kCPU;
  torch::ScalarType dtype_ = torch::kFloat;
  Shape problem_{}, aligned_{}, computed_{};
  torch::Tensor a_, b_, a_aligned_, b_aligned_, out_;
};

// One matmul of the shape the variant computes: 2mkn FLOP, both operands read and the
// product written once.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape c = s.variant == "aligned8" ? AlignedOf(s) : ProblemOf(s);
  const double m = static_cast<double>(c.m), kk = static_cast<double>(c.k),
               n = static_cast<double>(c.n);
  const double bytes =
      static_cast<double>(c10::elementSize(DtypeOf(s))) * (m * kk + kk * n + m * n);
  return {.flop = 2 * m * kk * n, .bytes = bytes, .working_set = bytes};
}

}  // namespace

TRICKBENCH_TRICK(tensor_core_multiples, TensorCoreMultiples)
    .Category("Model architecture and training")
    .Source("A9")
    .Claim("1.3-4x (dims 33712, 4088, 4096 vs 33708, 4084, 4095; tensor cores, fp16)")
    .Expect(trickbench::claim::Faster(1.3, 4)
                .ForCase("vocab33708_16bit")
                .OnCuda("tensor cores: the article's figure is for 16-bit matmuls on NVIDIA GPUs"))
    .Expect(trickbench::claim::Faster(1.3, 4)
                .ForCase("batch4084_16bit")
                .OnCuda("tensor cores: the article's figure is for 16-bit matmuls on NVIDIA GPUs"))
    .Expect(trickbench::claim::Faster(1.3, 4)
                .ForCase("batch4095_16bit")
                .OnCuda("tensor cores: the article's figure is for 16-bit matmuls on NVIDIA GPUs"))
    // The same dims on both devices; ProblemOf sizes the other dims by device.
    .Axis(trickbench::Axis::String("dim", {"vocab33708", "batch4084", "batch4095"}))
    .Axis(trickbench::Axis::String("precision", {"fp32", "16bit"}))
    .Work(Work)
    .Variant("unaligned", &TensorCoreMultiples::Unaligned)
    .Variant("aligned8", &TensorCoreMultiples::Aligned)
    .Tolerance(/*rtol=*/2e-3, /*atol=*/0);
