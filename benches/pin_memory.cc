// pin_memory (A3, B): copy to the GPU from page-locked host memory.
//
// A 64 MiB float batch copied host -> device, from an ordinary (pageable) tensor or
// from a pinned one (Tensor::pin_memory()). From pageable memory the driver first
// stages the data through its own pinned buffer, chunk by chunk; from pinned memory the
// DMA engine reads it directly. Each run synchronizes, so the wall time is the copy.
// With --config=cuda, pin_memory_cuda.cc also times the copy with CUDA events
// (counter copy_gb_per_s). Needs CUDA: on a CPU-only machine it is skipped.
//
// Memory: pinned memory comes from LibTorch's pinned host allocator, which the CPU
// memory meter does not see; the pinned copy is host memory the OS cannot page out.
// The device copies are bitwise equal.
#include <torch/cuda.h>

#include "harness/trick.h"

#ifdef TRICKBENCH_CUDA
namespace trickbench::pin_memory_cuda {
// Defined in pin_memory_cuda.cc: `dst.copy_(src)` timed with CUDA events, in ms.
double TimedCopyMs(torch::Tensor& dst, const torch::Tensor& src);
}  // namespace trickbench::pin_memory_cuda
#endif

namespace {

constexpr int64_t kFloats = 16 << 20;  // 64 MiB

class PinMemory : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    pageable_ = torch::randn({kFloats});
    pinned_ = pageable_.pin_memory();
    on_device_ = torch::empty({kFloats}, torch::TensorOptions().device(device_));
  }

  void Pageable() { Copy(pageable_); }
  void Pinned() { Copy(pinned_); }

  trickbench::Tensors Result() override { return {on_device_.cpu()}; }

  std::string Inactive(const std::string& variant) override {
    if (!on_device_.is_cuda()) return "destination is not on a CUDA device";
    if (variant == "pinned" && !pinned_.is_pinned()) return "source is not pinned";
    if (variant == "pageable" && pageable_.is_pinned()) return "pageable source is pinned";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    std::map<std::string, double> c = {{"bytes_per_copy", kFloats * 4.0}};
    if (last_copy_ms_ > 0) c["copy_gb_per_s"] = kFloats * 4.0 / (last_copy_ms_ * 1e6);
    return c;
  }

  int64_t ItemsPerRun() const override { return kFloats * 4; }  // bytes

 private:
  void Copy(const torch::Tensor& src) {
#ifdef TRICKBENCH_CUDA
    last_copy_ms_ = trickbench::pin_memory_cuda::TimedCopyMs(on_device_, src);
#else
    on_device_.copy_(src);
#endif
    torch::cuda::synchronize();
  }

  torch::Device device_ = torch::kCPU;
  torch::Tensor pageable_, pinned_, on_device_;
  double last_copy_ms_ = 0;
};

}  // namespace

TRICKBENCH_TRICK(pin_memory, PinMemory)
    .Category("Data loading")
    .Source("A3, B")
    .Claim("skips the pageable→pinned staging copy")
    .Expect(trickbench::claim::Faster())
    .NeedsCuda("host-to-device copy bandwidth from pinned vs pageable memory")
    .Variant("pageable", &PinMemory::Pageable)
    .Variant("pinned", &PinMemory::Pinned)
    .Bitwise();
