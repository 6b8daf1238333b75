// pin_memory (A3, B): DataLoader(pin_memory=True): pin each batch, then copy it to the GPU.
//
// A 64 MiB float batch, as a loader's collate leaves it (ordinary pageable memory),
// copied host -> device three ways, each run synchronized so the wall time is the whole:
//   pageable          the copy from the batch: the driver stages it through its own
//                     pinned buffer, chunk by chunk;
//   pinned_per_batch  what pin_memory=True does: the batch copied into page-locked
//                     memory first (Tensor::pin_memory(), from LibTorch's caching pinned
//                     allocator, as the DataLoader's pin thread calls it), then the
//                     DMA engine reads that directly; both copies timed;
//   pre_pinned        the data already live pinned (made in SetUp): the DMA copy alone,
//                     the upper bound, which no loader reaches when its batches are
//                     collated in pageable memory.
// The Faster() claim grades pinned_per_batch: it is the switch a user flips. The DataLoader
// pins on its own thread, overlapping the host copy with the training step, so on a
// machine with a spare core the truth lies between pinned_per_batch (the host copy on the
// critical path, as here) and pre_pinned (fully hidden); the overlap itself is prefetch's
// subject. pre_pinned is shown, not graded.
//
// With --config=cuda, pin_memory_cuda.cc also times the device copy alone with CUDA
// events (counter copy_gb_per_s), and pinned_per_batch's host copy is timed on the host
// clock (counter pin_gb_per_s): evidence of where the time goes, not graded. Needs CUDA:
// on a CPU-only machine it is skipped.
//
// Memory: pinned memory comes from LibTorch's pinned host allocator, which the CPU
// memory meter does not see; pinned host memory is memory the OS cannot page out.
// The device copies are bitwise equal.
#include <torch/cuda.h>

#include <chrono>

#include "harness/trick.h"

#ifdef TRICKBENCH_CUDA
namespace trickbench::pin_memory_cuda {
// Defined in pin_memory_cuda.cc: `dst.copy_(src)` timed with CUDA events, in ms.
double TimedCopyMs(torch::Tensor& dst, const torch::Tensor& src);
}  // namespace trickbench::pin_memory_cuda
#endif

namespace {

constexpr int64_t kFloats = 16 << 20;  // 64 MiB
constexpr double kBytes = kFloats * 4.0;

class PinMemory : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    batch_ = torch::randn({kFloats});
    if (s.variant == "pre_pinned") pinned_ = batch_.pin_memory();
    on_device_ = torch::empty({kFloats}, torch::TensorOptions().device(device_));
  }

  void Pageable() { Copy(batch_); }

  void PinnedPerBatch() {
    const auto began = std::chrono::steady_clock::now();
    const torch::Tensor staged = batch_.pin_memory();
    last_pin_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    Copy(staged);
  }

  void PrePinned() { Copy(pinned_); }

  trickbench::Tensors Result() override { return {on_device_.cpu()}; }

  std::string Inactive(const std::string& variant) override {
    if (!on_device_.is_cuda()) return "destination is not on a CUDA device";
    if (variant == "pageable" && last_src_pinned_) return "pageable source is pinned";
    if (variant != "pageable" && !last_src_pinned_) return "the copy's source is not pinned";
    if (variant == "pinned_per_batch" && last_src_ == batch_.data_ptr()) {
      return "the copy read the batch itself, not a pinned copy of it";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    std::map<std::string, double> c = {{"bytes_per_copy", kBytes}};
    if (last_copy_ms_ > 0) c["copy_gb_per_s"] = kBytes / (last_copy_ms_ * 1e6);
    if (variant == "pinned_per_batch" && last_pin_s_ > 0) {
      c["pin_gb_per_s"] = kBytes / (last_pin_s_ * 1e9);
    }
    return c;
  }

  int64_t ItemsPerRun() const override { return kFloats * 4; }  // bytes

 private:
  void Copy(const torch::Tensor& src) {
    last_src_pinned_ = src.is_pinned();
    last_src_ = src.data_ptr();
#ifdef TRICKBENCH_CUDA
    last_copy_ms_ = trickbench::pin_memory_cuda::TimedCopyMs(on_device_, src);
#else
    on_device_.copy_(src);
#endif
    torch::cuda::synchronize();
  }

  torch::Device device_ = torch::kCPU;
  torch::Tensor batch_, pinned_, on_device_;
  // The last run's evidence: what the device copy read, and how long its parts took.
  bool last_src_pinned_ = false;
  const void* last_src_ = nullptr;
  double last_copy_ms_ = 0;
  double last_pin_s_ = 0;
};

// One run, any variant: the batch copied host to device once (64 MiB: 1 ms at 64 GB/s)
// and written in device memory; pinned_per_batch's staging copy is host memory.
trickbench::CaseWork Work(const trickbench::Instance&) {
  return {.bytes = kBytes, .host_bytes = kBytes, .working_set = kBytes};
}

}  // namespace

TRICKBENCH_TRICK(pin_memory, PinMemory)
    .Category("Data loading")
    .Source("A3, B")
    .Claim("skips the pageable→pinned staging copy")
    .Expect(trickbench::claim::Faster().ForVariant("pinned_per_batch"))
    .NeedsCuda("host-to-device copy bandwidth from pinned vs pageable memory")
    .Work(Work)
    .Variant("pageable", &PinMemory::Pageable)
    .Variant("pinned_per_batch", &PinMemory::PinnedPerBatch)
    .Variant("pre_pinned", &PinMemory::PrePinned)
    .Bitwise();
