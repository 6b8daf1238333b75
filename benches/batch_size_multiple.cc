// batch_size_multiple (A10, B): a batch size that is a multiple of 8.
//
// One training step's forward and backward of the shared MLP (harness/workloads) at the
// article's batch sizes, unaligned vs the next multiple of 8: 4095 -> 4096 and
// 4084 -> 4088, each in fp32 and in 16 bit ("_16bit": BFloat16 on CPU, Half on CUDA).
// The backward is where the batch matters: in the weight-gradient GEMMs, dW = dY^T @ X,
// the batch is the reduction dimension k, while every leading dimension (the layer
// widths) stays aligned; in the forward and the input-gradient GEMMs it is m. The first
// layer's input needs no gradient, as in training, so its dX GEMM does not run.
//   CPU   Mlp {in 256, hidden 256, 1 hidden layer, out 10}: ~1.1 GFLOP per step at
//         batch 4096 (forward 0.56, weight gradients 0.56, dX 0.02); ~18 ms in fp32,
//         ~8 ms in BFloat16 on one thread of this 2-core CPU (the harness's setting)
//   CUDA  Mlp {in 4096, hidden 4096, 1 hidden layer, out 10}: ~276 GFLOP per step
//         (forward 138, weight gradients 138, dX 0.3); at H200 peak (~790 TFLOP/s
//         fp16 dense, ~60 TFLOP/s fp32 without tensor cores) ~0.35 ms in Half and
//         ~4.6 ms in fp32 per run: GPU work, not launch latency
// No optimizer step: its cost does not depend on the batch.
// ItemsPerRun is the batch, so items_per_second is samples/s: the per-sample figure an
// epoch's time follows (the aligned batch does one or four more samples per run, so
// the ratio of times per run understates it slightly). Counters add the step's achieved
// FLOP/s (its own brief timing) and, on a GPU in harness/kernels' table, the fraction of
// peak: evidence; the claim is graded on the paired rounds' time.
// "Maximise the batch until memory is full" is a GPU-memory matter; a CPU's memory is
// not the limit here, so that half of the advice is not measured.
//
// Equivalence: the outputs for the first 4084/4095 samples and every parameter's
// gradient. The backward starts from a given output gradient (integers in [-1, 1])
// rather than a loss, whose softmax would make every gradient inexact; the aligned
// batch's extra samples get a zero output gradient (masked), so they add exact zeros
// and the gradients are the unaligned batch's. Weights, biases, inputs and the output
// gradient are small integers (harness/kernels IntegerValued), so every GEMM sums
// integers, ReLU's mask is exact, and every partial sum stays at most 2^24 even in the
// worst case at these widths: exact in fp32 accumulation whatever blocking the kernel
// picks for the batch size, and the 16-bit roundings of exact sums agree. Bitwise equal
// on CPU; tolerance rtol 2e-3 (two fp16 ulps) allows for cuBLAS's reduced-precision
// fp16 reductions on a GPU. A variant run with the baseline's body is caught by
// Inactive() (its batch is not a multiple of 8).
#include <torch/nn/modules/container/sequential.h>
#include <torch/utils.h>

#include "harness/kernels.h"
#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace k = trickbench::kernels;
using trickbench::workloads::MlpSize;

// The MLP by device: the one place SetUp and Work size it from.
MlpSize SizeOf(const trickbench::Instance& s) {
  return s.device.is_cuda() ? MlpSize{.in = 4096, .hidden = 4096, .out = 10, .layers = 1}
                            : MlpSize{.in = 256, .hidden = 256, .out = 10, .layers = 1};
}

// The "batch" axis's samples: its values are the article's batch sizes.
int64_t SamplesOf(const trickbench::Instance& s) {
  return s.params.String("batch") == "4084" ? 4084 : 4095;
}

torch::ScalarType DtypeOf(const trickbench::Instance& s) {
  return s.params.String("precision") == "16bit" ? k::LowPrecisionFloat(s.device) : torch::kFloat;
}

// Forward and weight gradients: one GEMM each per layer; input gradients for every
// layer but the first. Bias gradients and ReLU are not counted.
int64_t FlopPerSample(const MlpSize& size) {
  int64_t flop = 0, width = size.in;
  for (int64_t i = 0; i <= size.layers; ++i) {
    const int64_t out = i == size.layers ? size.out : size.hidden;
    flop += k::MatmulFlop(1, width, out) * (i == 0 ? 2 : 3);
    width = out;
  }
  return flop;
}

class BatchSizeMultiple : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    dtype_ = DtypeOf(s);
    size_ = SizeOf(s);
    model_ = trickbench::workloads::Mlp(size_, device_);
    {
      torch::NoGradGuard no_grad;
      for (auto& p : model_->parameters())
        p.copy_(k::IntegerValued(p.sizes(), torch::kFloat, device_, 1));
    }
    model_->to(dtype_);
    samples_ = SamplesOf(s);
    const int64_t aligned = k::RoundUp(samples_, 8);
    aligned_input_ = k::IntegerValued({aligned, size_.in}, dtype_, device_, 1);
    input_ = aligned_input_.narrow(0, 0, samples_).contiguous();
    grad_out_ = k::IntegerValued({samples_, size_.out}, dtype_, device_, 1);
    aligned_grad_out_ = k::ZeroPad(grad_out_, 0, aligned);
  }

  void Unaligned() { Step(input_, grad_out_); }
  void Aligned() { Step(aligned_input_, aligned_grad_out_); }

  trickbench::Tensors Result() override {
    trickbench::Tensors r{out_.detach().narrow(0, 0, samples_)};
    for (const auto& p : model_->parameters()) r.push_back(p.grad());
    return r;
  }

  std::string Inactive(const std::string& variant) override {
    if (out_.scalar_type() != dtype_) {
      return std::string("output dtype is ") + c10::toString(out_.scalar_type()) + ", expected " +
             c10::toString(dtype_);
    }
    for (const auto& p : model_->parameters()) {
      if (!p.grad().defined()) return "the backward left a parameter without a gradient";
    }
    const bool multiple = batch_ % 8 == 0;
    if (variant == "aligned8" && !multiple)
      return "batch " + std::to_string(batch_) + " is not a multiple of 8";
    if (variant == "unaligned" && multiple)
      return "batch " + std::to_string(batch_) + " is a multiple of 8";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    // Reruns the variant's own body: same inputs, so the same out_ and gradients.
    const double seconds = k::MedianSecondsPerRun(
        [this, aligned = variant == "aligned8"] { aligned ? Aligned() : Unaligned(); }, device_);
    int64_t bytes = k::Bytes({variant == "aligned8" ? aligned_input_ : input_, out_});
    for (const auto& p : model_->parameters()) bytes += k::Bytes({p, p.grad()});
    auto c = k::RateCounters(static_cast<double>(batch_ * FlopPerSample(size_)),
                             static_cast<double>(bytes), seconds, device_, dtype_);
    c["batch"] = batch_;
    return c;
  }

  int64_t ItemsPerRun() const override { return batch_; }

 private:
  void Step(const torch::Tensor& x, const torch::Tensor& grad_out) {
    model_->zero_grad(/*set_to_none=*/true);
    out_ = model_->forward(x);
    out_.backward(grad_out);
    batch_ = x.size(0);
  }

  torch::Device device_ = torch::kCPU;
  torch::ScalarType dtype_ = torch::kFloat;
  MlpSize size_;
  torch::nn::Sequential model_{nullptr};
  torch::Tensor input_, aligned_input_, grad_out_, aligned_grad_out_, out_;
  int64_t samples_ = 0, batch_ = 0;
};

// One forward and backward at the variant's batch: FlopPerSample's GEMMs. Bytes: the
// weights read forward and backward and their gradients written; per sample the input
// read twice (forward, weight gradient), each hidden activation written, read by ReLU
// and written again, read twice more in the backward with its gradient written and read,
// the output and its gradient once each.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const MlpSize size = SizeOf(s);
  const double batch =
      static_cast<double>(s.variant == "aligned8" ? k::RoundUp(SamplesOf(s), 8) : SamplesOf(s));
  const double element = static_cast<double>(c10::elementSize(DtypeOf(s)));
  const double weights = static_cast<double>(trickbench::workloads::MlpParameters(size));
  const double per_sample =
      static_cast<double>(2 * size.in + 7 * size.layers * size.hidden + 2 * size.out);
  return {.flop = batch * static_cast<double>(FlopPerSample(size)),
          .bytes = element * (3 * weights + batch * per_sample),
          .working_set =
              element *
              (2 * weights +
               batch * static_cast<double>(size.in + 2 * size.layers * size.hidden + size.out))};
}

}  // namespace

TRICKBENCH_TRICK(batch_size_multiple, BatchSizeMultiple)
    .Category("Model architecture and training")
    .Source("A10, B")
    .Claim("faster epoch (batch 4096/4088 vs 4095/4084: 1.3-4x with tensor cores)")
    .Expect(trickbench::claim::Faster(1.3, 4)
                .ForCase("4095_16bit")
                .OnCuda("tensor cores: the article's figure is for 16-bit matmuls on NVIDIA GPUs"))
    .Expect(trickbench::claim::Faster(1.3, 4)
                .ForCase("4084_16bit")
                .OnCuda("tensor cores: the article's figure is for 16-bit matmuls on NVIDIA GPUs"))
    // Case names "4095_fp32" ...: the batch axis's values are the article's batch sizes.
    .Axis(trickbench::Axis::String("batch", {"4095", "4084"}))
    .Axis(trickbench::Axis::String("precision", {"fp32", "16bit"}))
    .Work(Work)
    .Variant("unaligned", &BatchSizeMultiple::Unaligned)
    .Variant("aligned8", &BatchSizeMultiple::Aligned)
    .Tolerance(/*rtol=*/2e-3, /*atol=*/0);
