// batch_size_multiple (A10, B): a batch size that is a multiple of 8.
//
// Inference forward of the shared MLP (harness/workloads) at the article's batch sizes,
// unaligned vs the next multiple of 8: 4095 -> 4096 and 4084 -> 4088, each in fp32 and
// in 16 bit ("_16bit": BFloat16 on CPU, Half on CUDA). The batch is the m dimension of
// every GEMM in the forward (and of the weight-gradient GEMMs' k in a training step).
//   CPU   Mlp {in 256, hidden 256, 2 hidden layers, out 10}: ~1.1 GFLOP per run at
//         batch 4096, ~30 ms in fp32 on a 2-core CPU
//   CUDA  Mlp {in 1024, hidden 1024, 1 hidden layer, out 10}
// ItemsPerRun is the batch, so items_per_second is samples/s: the per-sample figure an
// epoch's time follows (the aligned batch does one or four more samples per run, so
// the ratio of times per run understates it slightly). Counters add achieved FLOP/s and,
// on a GPU in harness/kernels' table, the fraction of peak.
// "Maximise the batch until memory is full" is a GPU-memory matter; a CPU's memory is
// not the limit here, so that half of the advice is not measured.
//
// Equivalence: the outputs for the first 4084/4095 samples. Weights, biases and inputs
// are small integers (harness/kernels IntegerValued), so every layer's sum is exact in
// fp32 accumulation whatever blocking the kernel picks for the batch size, and the 16-bit
// roundings of exact sums agree: bitwise equal on CPU. Tolerance rtol 2e-3 (two fp16
// ulps) allows for cuBLAS's reduced-precision fp16 reductions on a GPU.
#include <torch/nn/modules/container/sequential.h>
#include <torch/utils.h>

#include "harness/kernels.h"
#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace k = trickbench::kernels;

class BatchSizeMultiple : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    dtype_ = s.case_name.find("_16bit") != std::string::npos ? k::LowPrecisionFloat(device_)
                                                             : torch::kFloat;
    size_ = device_.is_cuda()
                ? trickbench::workloads::MlpSize{.in = 1024, .hidden = 1024, .out = 10, .layers = 1}
                : trickbench::workloads::MlpSize{.in = 256, .hidden = 256, .out = 10, .layers = 2};
    model_ = trickbench::workloads::Mlp(size_, device_);
    {
      torch::NoGradGuard no_grad;
      for (auto& p : model_->parameters())
        p.copy_(k::IntegerValued(p.sizes(), torch::kFloat, device_, 1));
    }
    model_->to(dtype_);
    samples_ = s.case_name.rfind("4084", 0) == 0 ? 4084 : 4095;
    aligned_input_ = k::IntegerValued({k::RoundUp(samples_, 8), size_.in}, dtype_, device_, 1);
    input_ = aligned_input_.narrow(0, 0, samples_).contiguous();
  }

  void Unaligned() { Forward(input_); }
  void Aligned() { Forward(aligned_input_); }

  trickbench::Tensors Result() override { return {out_.narrow(0, 0, samples_)}; }

  std::string Inactive(const std::string& variant) override {
    if (out_.scalar_type() != dtype_) {
      return std::string("output dtype is ") + c10::toString(out_.scalar_type()) + ", expected " +
             c10::toString(dtype_);
    }
    const bool multiple = batch_ % 8 == 0;
    if (variant == "aligned8" && !multiple)
      return "batch " + std::to_string(batch_) + " is not a multiple of 8";
    if (variant == "unaligned" && multiple)
      return "batch " + std::to_string(batch_) + " is a multiple of 8";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const torch::Tensor x = variant == "aligned8" ? aligned_input_ : input_;
    auto model = model_;
    const double seconds = k::MedianSecondsPerRun(
        [model, x]() mutable {
          torch::NoGradGuard no_grad;
          auto y = model->forward(x);
        },
        device_);
    int64_t bytes = k::Bytes({x, out_});
    for (const auto& p : model_->parameters()) bytes += k::Bytes({p});
    auto c = k::RateCounters(static_cast<double>(batch_ * FlopPerSample()),
                             static_cast<double>(bytes), seconds, device_, dtype_);
    c["batch"] = batch_;
    return c;
  }

  int64_t ItemsPerRun() const override { return batch_; }

 private:
  void Forward(const torch::Tensor& x) {
    torch::NoGradGuard no_grad;
    out_ = model_->forward(x);
    batch_ = x.size(0);
  }

  int64_t FlopPerSample() const {
    int64_t flop = 0, width = size_.in;
    for (int64_t i = 0; i < size_.layers; ++i, width = size_.hidden)
      flop += k::MatmulFlop(1, width, size_.hidden);
    return flop + k::MatmulFlop(1, width, size_.out);
  }

  torch::Device device_ = torch::kCPU;
  torch::ScalarType dtype_ = torch::kFloat;
  trickbench::workloads::MlpSize size_;
  torch::nn::Sequential model_{nullptr};
  torch::Tensor input_, aligned_input_, out_;
  int64_t samples_ = 0, batch_ = 0;
};

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
    .Cases({"4095_fp32", "4095_16bit", "4084_fp32", "4084_16bit"})
    .Variant("unaligned", &BatchSizeMultiple::Unaligned)
    .Variant("aligned8", &BatchSizeMultiple::Aligned)
    .Tolerance(/*rtol=*/2e-3, /*atol=*/0);
