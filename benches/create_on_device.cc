// create_on_device (A4): build a tensor where it is used instead of on the host.
//
// A 64 MiB tensor (arange scaled by a seeded factor) made on the CPU and then copied
// with .to(device), or made directly on the device by passing the device in the
// TensorOptions: no host allocation, no host fill, no transfer. Each run synchronizes.
// Needs CUDA: on a CPU-only machine it is skipped.
//
// arange below 2^24 is exact in float and the scaling is one IEEE multiply, so the CPU
// and the GPU produce bitwise the same values. The CPU memory meter shows the other
// saving: the baseline allocates 64 MiB of host memory per run, the optimized none.
#include <torch/cuda.h>

#include "harness/trick.h"

namespace {

constexpr int64_t kFloats = 16 << 20;  // below 2^24: arange exact in float

class CreateOnDevice : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    scale_ = torch::rand({}).item<float>() + 0.5f;
  }

  void HostThenCopy() {
    out_ = torch::arange(kFloats, torch::kFloat).mul_(scale_).to(device_);
    torch::cuda::synchronize();
  }

  void OnDevice() {
    out_ = torch::arange(kFloats, torch::TensorOptions(torch::kFloat).device(device_)).mul_(scale_);
    torch::cuda::synchronize();
  }

  trickbench::Tensors Result() override { return {out_.cpu()}; }

  std::string Inactive(const std::string& variant) override {
    return out_.device() == device_ && device_.is_cuda() ? "" : "result is not on the CUDA device";
  }

  int64_t ItemsPerRun() const override { return kFloats; }

 private:
  torch::Device device_ = torch::kCPU;
  float scale_ = 1;
  torch::Tensor out_;
};

}  // namespace

TRICKBENCH_TRICK(create_on_device, CreateOnDevice)
    .Category("Data loading")
    .Source("A4")
    .Claim("avoids a transfer")
    .Expect(trickbench::claim::Faster())
    .NeedsCuda("the saving is the host-to-device transfer")
    .Variant("host_then_copy", &CreateOnDevice::HostThenCopy)
    .Variant("on_device", &CreateOnDevice::OnDevice)
    .Bitwise();
