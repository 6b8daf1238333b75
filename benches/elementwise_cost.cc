// elementwise_cost (B): element-wise ops cost far more per FLOP than a matmul.
//
// The same result, y = x * d (each column j of x scaled by d_j), from two kernels that
// move the same bytes (two 512x512 fp32 inputs read, one written: 3 MB):
//   matmul       x @ diag(d): a GEMM, 2 * 512^3 = 268 MFLOP, ~85 FLOP per byte
//   elementwise  x * D, where D is diag(d)'s [512, 512] counterpart with column j
//                filled with d_j: 512^2 = 0.26 MFLOP, 1/12 FLOP per byte
// The GEMM does 1024x the FLOPs over the same bytes. The claim holds if its time is far
// less than 1024x the element-wise op's: graded as a rate (claim::LowerRate), FLOP per
// run over the paired rounds' measured time. Memory-bound element-wise ops reach a tiny
// fraction of the FLOP/s a GEMM reaches. (At a 1024x FLOP ratio the grade is nearly
// certain: the claim about a network, element-wise ops' share of its time against their
// share of its FLOPs, is not what this pair measures.)
//
// Equivalence: bitwise. Every output of x @ diag(d) is x_ij * d_j plus exact zeros
// (x_ik * 0 = +-0, and adding zeros to a sum is exact), which is what x * D computes.
#include "harness/kernels.h"
#include "harness/trick.h"

namespace {

constexpr int64_t kN = 512;

class ElementwiseCost : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    x_ = torch::randn({kN, kN}).to(device_);
    const torch::Tensor d = torch::randn({kN});
    diagonal_ = torch::diag(d).to(device_);
    columns_ = d.expand({kN, kN}).contiguous().to(device_);
  }

  void Matmul() {
    out_ = x_.mm(diagonal_);
    flop_ = trickbench::kernels::MatmulFlop(kN, kN, kN);
  }

  void Elementwise() {
    out_ = x_ * columns_;
    flop_ = kN * kN;
  }

  trickbench::Tensors Result() override { return {out_}; }

  std::string Inactive(const std::string& variant) override {
    // Both read two n x n operands and write one: the byte counts the comparison rests on.
    const int64_t bytes =
        trickbench::kernels::Bytes({x_, variant == "matmul" ? diagonal_ : columns_, out_});
    if (bytes != 3 * kN * kN * 4) return "operands are not three 512x512 fp32 tensors";
    // What the body dispatched: a matmul, or one elementwise multiply and no matmul.
    if (variant == "matmul" && OpsRun("aten::mm") == 0) return "the run called no aten::mm";
    if (variant == "elementwise" && (OpsRun("aten::mm") > 0 || OpsRun("aten::mul") == 0)) {
      return "the run was not one elementwise aten::mul (aten::mm ran " +
             std::to_string(OpsRun("aten::mm")) + " times)";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const torch::Tensor x = x_, diagonal = diagonal_, columns = columns_;
    std::function<void()> body;
    if (variant == "matmul") {
      body = [x, diagonal] { auto y = x.mm(diagonal); };
    } else {
      body = [x, columns] { auto y = x * columns; };
    }
    const double seconds = trickbench::kernels::MedianSecondsPerRun(body, device_);
    auto c = trickbench::kernels::RateCounters(static_cast<double>(flop_), 3.0 * kN * kN * 4,
                                               seconds, device_, torch::kFloat);
    c["seconds_per_gflop"] = seconds / (flop_ * 1e-9);
    return c;
  }

  // FLOP per run: items_per_second (wall time) is then the measured runs' FLOP/s.
  int64_t ItemsPerRun() const override { return flop_; }

 private:
  torch::Device device_ = torch::kCPU;
  torch::Tensor x_, diagonal_, columns_, out_;
  int64_t flop_ = 0;
};

}  // namespace

TRICKBENCH_TRICK(elementwise_cost, ElementwiseCost)
    .Category("Kernels and data operations")
    .Source("B")
    .Claim("element-wise ops cost far more than their FLOPs suggest (memory access cost)")
    .Expect(trickbench::claim::LowerRate("flop_per_run"))
    .Variant("matmul", &ElementwiseCost::Matmul)
    .Variant("elementwise", &ElementwiseCost::Elementwise)
    .Bitwise();
