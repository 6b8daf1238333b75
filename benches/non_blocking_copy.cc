// non_blocking_copy (A7, B): overlap host-to-device copies with compute.
//
// Eight 8 MiB chunks of input (2048 x 1024 floats) go to the GPU and each is multiplied
// by a 1024 x 1024 weight (relu, column sums accumulated). Both variants copy from the
// same pinned host chunks, so the comparison isolates the overlap from pinning's own
// gain (faster DMA without a staging copy), which pin_memory measures. The baseline
// copies each chunk with a blocking .to(device), then computes: copy and compute take
// turns. The optimized variant (non_blocking_copy_cuda.cc) copies chunk i+1 with
// non_blocking=true on a side stream while chunk i computes on the main stream; a CUDA
// event per chunk makes the compute wait for its own chunk only. Each run synchronizes. Needs CUDA: skipped on a CPU-only
// machine, and the overlapped variant needs a --config=cuda build.
//
// Same kernels on the same data in the same order on the compute stream: results are
// expected bitwise equal; the tolerance (1e-6 relative) only allows cuBLAS to choose a
// different kernel for the same shape in the other instance.
#include <torch/cuda.h>

#include "harness/trick.h"

#ifdef TRICKBENCH_CUDA
namespace trickbench::non_blocking_copy_cuda {
// Defined in non_blocking_copy_cuda.cc: sum over chunks of compute(chunk on device),
// copies on a side stream overlapping the compute on the current stream.
torch::Tensor OverlappedCopyCompute(
    const std::vector<torch::Tensor>& pinned_chunks, const torch::Device& device,
    const std::function<torch::Tensor(const torch::Tensor&)>& compute);
}  // namespace trickbench::non_blocking_copy_cuda
#endif

namespace {

constexpr int kChunks = 8;
constexpr int64_t kRows = 2048, kCols = 1024;

class NonBlockingCopy : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    weight_ = (torch::randn({kCols, kCols}) / 32).to(device_);
    for (int i = 0; i < kChunks; ++i) pinned_.push_back(torch::randn({kRows, kCols}).pin_memory());
  }

  void BlockingThenCompute() {
    torch::Tensor acc = torch::zeros({kCols}, weight_.options());
    for (const auto& chunk : pinned_) acc.add_(Compute(chunk.to(device_)));
    torch::cuda::synchronize();
    out_ = acc;
    overlapped_ = false;
  }

  void OverlappedNonBlocking() {
#ifdef TRICKBENCH_CUDA
    out_ = trickbench::non_blocking_copy_cuda::OverlappedCopyCompute(
        pinned_, device_, [this](const torch::Tensor& x) { return Compute(x); });
    torch::cuda::synchronize();
    overlapped_ = true;
#else
    throw std::runtime_error(
        "the overlapped variant needs a --config=cuda build (TRICKBENCH_CUDA)");
#endif
  }

  trickbench::Tensors Result() override { return {out_.cpu()}; }

  std::string Inactive(const std::string& variant) override {
    // Both variants read the same pinned chunks: only the overlap differs.
    for (const auto& c : pinned_) {
      if (!c.is_pinned())
        return "a source chunk is not pinned: the variants would differ in pinning";
    }
    if (variant == "overlapped_non_blocking" && !overlapped_) return "ran without the side stream";
    return "";
  }

  int64_t ItemsPerRun() const override { return kChunks * kRows; }

 private:
  torch::Tensor Compute(const torch::Tensor& x) const { return torch::relu(x.mm(weight_)).sum(0); }

  torch::Device device_ = torch::kCPU;
  torch::Tensor weight_, out_;
  std::vector<torch::Tensor> pinned_;
  bool overlapped_ = false;
};

// One run, either variant: the eight chunks copied host to device (64 MiB: 1 ms at
// 64 GB/s, the floor's binding term); per chunk the GEMM's FLOP, and in device memory
// the chunk written and read, the weight read, the product written, read and written
// by relu, and read by the column sum.
trickbench::CaseWork Work(const trickbench::Instance&) {
  const double chunk = 4.0 * kRows * kCols, weight = 4.0 * kCols * kCols;
  return {.flop = 2.0 * kChunks * kRows * kCols * kCols,
          .bytes = kChunks * (2 * chunk + weight + 4 * chunk),
          .host_bytes = kChunks * chunk,
          .working_set = kChunks * chunk + weight + 2 * chunk};
}

}  // namespace

TRICKBENCH_TRICK(non_blocking_copy, NonBlockingCopy)
    .Category("Data loading")
    .Source("A7, B")
    .Claim("overlap hides transfer time")
    .Expect(trickbench::claim::Faster())
    .NeedsCuda("overlapping host-to-device copies with GPU compute needs CUDA streams")
    .Work(Work)
    .Variant("blocking_then_compute", &NonBlockingCopy::BlockingThenCompute)
    .Variant("overlapped_non_blocking", &NonBlockingCopy::OverlappedNonBlocking)
    .Tolerance(1e-6, 1e-6);
