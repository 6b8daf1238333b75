// depthwise_mac (B): depthwise convolution has few FLOPs but a high memory access cost.
//
// The same 3x3 convolution of an [8, 64, 32, 32] fp32 input to the same [8, 64, 32, 32]
// output, two ways:
//   dense      groups=1, a [64, 64, 3, 3] weight that is zero off the channel diagonal:
//              2 * 8*64*32*32 * 64*9 = 604 MFLOP
//   depthwise  groups=64, the [64, 1, 3, 3] diagonal itself: 64x fewer FLOPs (9.4 MFLOP)
// Both move about the same bytes (input and output dominate: 2 MB each; weights 147 KB
// vs 2.3 KB). On CUDA (ShapeOf) the input is [128, 64, 112, 112], MobileNet's layer:
// 411 MB each way, 118 GFLOP dense, 1.9 GFLOP depthwise. The claim holds if depthwise
// is far less than 64x faster: its achieved FLOP/s is lower than the dense conv's,
// because it is bound by memory access, not FLOPs.
// Graded as a rate (claim::LowerRate): flop_per_run, from the shapes, over the paired
// rounds' measured time. The FLOP counts themselves are evidence: no run could change
// them. The achieved_flop_per_s counters (a brief timing of their own) are shown only.
//
// Tolerance: rtol 1e-5, atol 1e-5. The dense kernel adds 576 products of which 567 are
// exact zeros, the depthwise kernel adds the 9 nonzero ones; the fp32 sums differ only
// in the order the 9 terms are added (inputs ~N(0,1), weights ~U(-1/3, 1/3): outputs
// below ~5, a few ulp apart; measured max |diff| is printed in the check report). On CUDA
// cuDNN's TF32 is turned off for this trick, so that both stay exact fp32.
#include "harness/kernels.h"
#include "harness/trick.h"

namespace {

constexpr int64_t kChannels = 64, kKernel = 3;

struct Shape {
  int64_t batch, side;
};

// The CPU's [8, 64, 32, 32]; on CUDA MobileNet's 112x112x64 depthwise layer at batch
// 128 (411 MB in, 411 MB out), so that the depthwise conv's traffic leaves the L2 and
// takes ~190 us at an H200's bandwidth. The one place SetUp and Work size from.
Shape ShapeOf(const trickbench::Instance& s) {
  return s.device.is_cuda() ? Shape{128, 112} : Shape{8, 32};
}

// One convolution: the variant's FLOP (Conv2dFlop: 64 inputs per output for dense, 1
// for depthwise); the input read, the output written and the weight read once.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const int64_t per_group = s.variant == "depthwise" ? 1 : kChannels;
  const double tensor =
      4.0 * static_cast<double>(shape.batch * kChannels * shape.side * shape.side);
  const double weight = 4.0 * static_cast<double>(kChannels * per_group * kKernel * kKernel);
  return {.flop = static_cast<double>(trickbench::kernels::Conv2dFlop(
              shape.batch, kChannels, shape.side, shape.side, per_group, kKernel, kKernel)),
          .bytes = 2 * tensor + weight,
          .working_set = 2 * tensor + weight};
}

class DepthwiseMac : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    shape_ = ShapeOf(s);
    // On CUDA, cuDNN runs an fp32 dense convolution in TF32 by default (10-bit mantissa)
    // but the depthwise kernel in exact fp32: the two would differ far beyond the
    // tolerance, and the FLOP comparison would be of two precisions. Both exact fp32.
    if (device_.is_cuda()) at::globalContext().setAllowTF32CuDNN(false);
    input_ = torch::randn({shape_.batch, kChannels, shape_.side, shape_.side}).to(device_);
    const double bound = 1.0 / kKernel;  // Conv2d's default init bound for a 3x3 depthwise kernel
    depthwise_weight_ =
        (torch::rand({kChannels, 1, kKernel, kKernel}) * 2 * bound - bound).to(device_);
    // Dense weight: output channel c sees only input channel c, with the same kernel.
    dense_weight_ = torch::zeros({kChannels, kChannels, kKernel, kKernel});
    for (int64_t c = 0; c < kChannels; ++c)
      dense_weight_[c][c].copy_(depthwise_weight_.cpu()[c][0]);
    dense_weight_ = dense_weight_.to(device_);
  }

  void Dense() {
    out_ = torch::conv2d(input_, dense_weight_, {}, /*stride=*/1, /*padding=*/1);
    groups_ = 1;
  }

  void Depthwise() {
    out_ = torch::conv2d(input_, depthwise_weight_, {}, 1, 1, /*dilation=*/1, /*groups=*/kChannels);
    groups_ = kChannels;
  }

  trickbench::Tensors Result() override { return {out_}; }

  std::string Inactive(const std::string& variant) override {
    if (out_.sizes() != input_.sizes()) return "output shape differs from the input's";
    const int64_t expected = variant == "depthwise" ? kChannels : 1;
    if (groups_ != expected) return "last run used groups=" + std::to_string(groups_);
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const bool depthwise = variant == "depthwise";
    const torch::Tensor x = input_, w = depthwise ? depthwise_weight_ : dense_weight_;
    const int64_t groups = depthwise ? kChannels : 1;
    const double seconds = trickbench::kernels::MedianSecondsPerRun(
        [x, w, groups] { auto y = torch::conv2d(x, w, {}, 1, 1, 1, groups); }, device_);
    return trickbench::kernels::RateCounters(static_cast<double>(Flop()),
                                             trickbench::kernels::Bytes({input_, w, out_}), seconds,
                                             device_, torch::kFloat);
  }

  // FLOP per run: items_per_second (wall time) is then the measured runs' FLOP/s.
  int64_t ItemsPerRun() const override { return Flop(); }

 private:
  int64_t Flop() const {
    return trickbench::kernels::Conv2dFlop(shape_.batch, kChannels, shape_.side, shape_.side,
                                           kChannels / groups_, kKernel, kKernel);
  }

  torch::Device device_ = torch::kCPU;
  Shape shape_{};
  torch::Tensor input_, dense_weight_, depthwise_weight_, out_;
  int64_t groups_ = 1;
};

}  // namespace

TRICKBENCH_TRICK(depthwise_mac, DepthwiseMac)
    .Category("Kernels and data operations")
    .Source("B")
    .Claim("depthwise has low FLOPs but high memory access cost")
    // Fewer FLOP and FLOP per byte follow from the shapes (evidence); what is measured is
    // that the FLOP saving does not become time: a lower achieved FLOP/s.
    .Expect(trickbench::claim::LowerRate("flop_per_run"))
    .Work(Work)
    .TrafficBound()
    .Variant("dense", &DepthwiseMac::Dense)
    .Variant("depthwise", &DepthwiseMac::Depthwise)
    .Tolerance(/*rtol=*/1e-5, /*atol=*/1e-5);
