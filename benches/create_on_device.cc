// create_on_device (A4): build a tensor where it is used instead of on the host.
//
// A 256 MiB tensor (arange scaled by a seeded factor) made on the CPU and then copied
// with .to(device), or made directly on the device by passing the device in the
// TensorOptions: no host allocation, no host fill, no transfer. Each run synchronizes.
// Needs CUDA: on a CPU-only machine it is skipped. The size is an H200's: on the device
// the fill writes it and the scaling reads and writes it again (805 MB, 187 us at
// 4.3 TB/s), so the GPU times the fill, not its launch.
//
// Each value is its index rounded once to float (exact below 2^24; above it the CPU
// rounds the exact index held in double, CUDA converts the index to float: the same
// round-to-nearest) and the scaling is one IEEE multiply, so the CPU and the GPU produce
// bitwise the same values. The CPU memory meter shows the other saving: the baseline
// allocates 256 MiB of host memory per run, the optimized none.
#include <torch/cuda.h>

#include "harness/trick.h"

namespace {

constexpr int64_t kFloats = int64_t{1} << 26;  // 256 MiB of float

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

// One run: host_then_copy copies the tensor host to device (its fill and scaling are
// host work); on_device writes it (arange), then reads and writes it (mul_).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const double bytes = 4.0 * kFloats;
  if (s.variant == "host_then_copy")
    return {.bytes = bytes, .host_bytes = bytes, .working_set = bytes};
  return {.flop = static_cast<double>(kFloats), .bytes = 3 * bytes, .working_set = bytes};
}

}  // namespace

TRICKBENCH_TRICK(create_on_device, CreateOnDevice)
    .Category("Data loading")
    .Source("A4")
    .Claim("avoids a transfer")
    .Expect(trickbench::claim::Faster())
    .NeedsCuda("the saving is the host-to-device transfer")
    .Work(Work)
    .Variant("host_then_copy", &CreateOnDevice::HostThenCopy)
    .Variant("on_device", &CreateOnDevice::OnDevice)
    .Bitwise();
