// low_precision_reductions (B, A11): sum, mean and log-softmax of 16-bit tensors,
// reduced in the 16-bit dtype or accumulated and returned in fp32.
//
// B: low precision "saves some memory and speeds up, but beware of unsafe operations
// such as mean and sum"; A11: AMP runs some ops (softmax, mse_loss, ...) in fp32. The
// hazard is the 16-bit result, not only the accumulation: LibTorch's CPU and CUDA
// kernels already accumulate a Half sum in fp32, but a Half output saturates at 65504
// (a sum of 2^20 activations of ~0.5 is inf) and keeps 11 significant bits. Variants:
//   reduce_in_16bit  the op on the 16-bit tensor, as written (result in its dtype)
//   fp32_accumulate  the same op asked for fp32 with dtype=Float (accumulator and output
//                    fp32). On the CPU this costs time and memory: sum(dtype=Float) of a
//                    Half tensor converts the whole input to fp32 first (a run's peak
//                    +30 %, 0.6x the speed here); the claim is accuracy: no time claim.
// Why explicit and not under autocast: autocast's fp32 list does this on CUDA, but on
// the CPU (LibTorch 2.11, autocast dtype Half) sum, mean, var, softmax, log_softmax and
// layer_norm all stay Half (only mse_loss went to fp32, tried here): autocast would not
// be the fix the CPU measures.
//
// Cases "fp16" and "bf16": each run does the three ops on seeded data of a real size, in
// that dtype (on CUDA 64 times as many elements, the rows of mean and log_softmax
// multiplied: ~540 MB a run, ~125 us at an H200's bandwidth):
//   sum          of 2^20 activations U(0, 1): the sum, ~5.2e5, overflows fp16 (inf)
//   mean         per-row mean of [1024, 1024] activations U(0, 1)
//   log_softmax  over 4096 classes of [256, 4096] logits of std 8
// bf16 has fp32's range (no overflow) and 8 significant bits to fp16's 11.
// The claim is graded per op on a measured error, <op>_rel_error_vs_fp64: the normwise
// relative error ||y - y64|| / ||y64|| of the variant's output against the same op in
// float64 on the same 16-bit inputs (so input rounding, common to both, is not counted),
// an inf or NaN output counted as 1 (no correct digit), floored at 1e-16 (below what the
// fp64 reference resolves: a counter of 0 cannot be exported). Measured here (CPU, one
// process): fp16 sum inf (1), mean 2.2e-4, log_softmax 2.1e-4; bf16 sum 8.8e-4, mean
// 1.8e-3, log_softmax 1.7e-3; fp32 accumulation 4e-9 to 5e-8 in both cases.
//
// Equivalence is not this trick's question: the variants differ in accuracy by design and
// that difference is the graded counter. Result() is what both reduce and the fp64
// reference (both from the seed; on CUDA their first rows), so the check confirms both
// saw the same data; Inactive()
// proves each ran in its dtype (the baseline's body in the fp32 variant leaves a 16-bit
// output, which it reports).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/trick.h"

namespace {

constexpr const char* kOps[] = {"sum", "mean", "log_softmax"};

// The op `op` on x; `dtype` nullopt: in x's dtype, as written.
torch::Tensor Reduce(const std::string& op, const torch::Tensor& x,
                     std::optional<torch::ScalarType> dtype) {
  if (op == "sum") return dtype ? x.sum(*dtype) : x.sum();
  if (op == "mean") return x.mean({1}, /*keepdim=*/false, dtype);
  return torch::log_softmax(x, 1, dtype);
}

// The op's input size: 2^20 elements each on the CPU; 2^26 on CUDA (134 MB in 16 bit),
// where the three ops' 6 MB would stay in an H200's L2 and time launches. The rows of
// mean and log_softmax grow, the reduced length stays. The one place SetUp and Work
// size from.
std::vector<int64_t> SizesOf(const std::string& op, const torch::Device& device) {
  const int64_t scale = device.is_cuda() ? 64 : 1;
  if (op == "sum") return {scale << 20};
  if (op == "mean") return {scale * 1024, 1024};
  return {scale * 256, 4096};
}

// The op's seeded input, in float64 before it is rounded to the case's dtype.
torch::Tensor Data(const std::string& op, const torch::Device& device) {
  const auto options = torch::TensorOptions().dtype(torch::kDouble).device(device);
  if (op == "sum") return torch::rand(SizesOf(op, device), options);
  if (op == "mean") return torch::rand(SizesOf(op, device), options);
  return torch::randn(SizesOf(op, device), options) * 8;
}

// The first `rows` rows of t (all of a 0-d tensor).
torch::Tensor Head(const torch::Tensor& t, int64_t rows) {
  return t.dim() == 0 ? t : t.narrow(0, 0, std::min(rows, t.size(0)));
}

// One run: each op reads its 16-bit input once and writes its output (sum a scalar, mean
// a row's, log_softmax the input's size) in the 16-bit dtype or in fp32.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const double out_element = s.variant == "fp32_accumulate" ? 4 : 2;
  double bytes = 0, flop = 0;
  for (const std::string op : kOps) {
    const std::vector<int64_t> sizes = SizesOf(op, s.device);
    double elements = 1;
    for (const int64_t n : sizes) elements *= static_cast<double>(n);
    const double outputs = op == "sum"    ? 1
                           : op == "mean" ? static_cast<double>(sizes[0])
                                          : elements;
    bytes += 2 * elements + out_element * outputs;
    flop += (op == "log_softmax" ? 4 : 1) * elements;
  }
  return {.flop = flop, .bytes = bytes, .working_set = bytes};
}

class LowPrecisionReductions : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const torch::ScalarType dtype =
        s.params.String("case") == "bf16" ? torch::kBFloat16 : torch::kHalf;
    for (const std::string op : kOps) {
      inputs_[op] = Data(op, s.device).to(dtype);
      references_[op] = Reduce(op, inputs_[op].to(torch::kDouble), torch::kDouble).cpu();
      result_rows_[op] = SizesOf(op, torch::kCPU)[0];
    }
  }

  void ReduceIn16Bit() { Run(std::nullopt); }
  void Fp32Accumulate() { Run(torch::kFloat); }

  // The first rows, as many as the CPU's case has (all of it there): enough to confirm
  // both variants saw the same seeded data without copying CUDA's 400 MB to the host.
  trickbench::Tensors Result() override {
    trickbench::Tensors out;
    for (const std::string op : kOps) {
      out.push_back(Head(inputs_[op], result_rows_[op]).cpu().to(torch::kFloat));
      out.push_back(Head(references_[op], result_rows_[op]));
    }
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    for (const std::string op : kOps) {
      const torch::ScalarType want =
          variant == "fp32_accumulate" ? torch::kFloat : inputs_[op].scalar_type();
      if (outputs_[op].scalar_type() != want) {
        return "the " + op + " returned " + c10::toString(outputs_[op].scalar_type()) +
               ", expected " + c10::toString(want);
      }
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    std::map<std::string, double> c;
    for (const std::string op : kOps) {
      const torch::Tensor y = outputs_[op].cpu().to(torch::kDouble), ref = references_[op];
      double error = 1;  // an inf or NaN output carries no correct digit
      if (torch::isfinite(y).all().item<bool>())
        error = std::clamp(((y - ref).norm() / ref.norm()).item<double>(), 1e-16, 1.0);
      c[op + "_rel_error_vs_fp64"] = error;
    }
    return c;
  }

  int64_t ItemsPerRun() const override {
    int64_t n = 0;
    for (const auto& [op, x] : inputs_) n += x.numel();
    return n;
  }

 private:
  void Run(std::optional<torch::ScalarType> dtype) {
    for (const std::string op : kOps) outputs_[op] = Reduce(op, inputs_[op], dtype);
  }

  std::map<std::string, torch::Tensor> inputs_, references_, outputs_;
  std::map<std::string, int64_t> result_rows_;
};

trickbench::claim::Effect FewerErrors(const std::string& op) {
  return trickbench::claim::Fewer(
      op + "_rel_error_vs_fp64",
      "normwise relative error ||y - y64|| / ||y64|| of the " + op +
          "'s output after the checks' runs against the same op in float64 on the same "
          "16-bit inputs; an inf or NaN output counts as 1");
}

}  // namespace

TRICKBENCH_TRICK(low_precision_reductions, LowPrecisionReductions)
    .Category("Kernels and data operations")
    .Source("B, A11")
    .Claim(
        "low precision saves memory and time, but beware unsafe ops such as mean and sum "
        "(AMP runs them in fp32); no figure")
    .Expect(FewerErrors("sum"))
    .Expect(FewerErrors("mean"))
    .Expect(FewerErrors("log_softmax"))
    .Cases({"fp16", "bf16"})
    .Work(Work)
    .Variant("reduce_in_16bit", &LowPrecisionReductions::ReduceIn16Bit)
    .Variant("fp32_accumulate", &LowPrecisionReductions::Fp32Accumulate)
    .Bitwise();
