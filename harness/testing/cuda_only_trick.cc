// Test-only trick that needs CUDA: on a machine without it, it must be reported as
// skipped with the reason, exit 0, and time nothing.
#include "harness/trick.h"

namespace {

class CudaOnly : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override { x_ = torch::randn({8}, s.device); }
  void Run() { y_ = x_ * 3; }
  trickbench::Tensors Result() override { return {y_}; }

 private:
  torch::Tensor x_, y_;
};

}  // namespace

TRICKBENCH_TRICK(cuda_only, CudaOnly)
    .Category("test")
    .Source("test")
    .Claim("needs a GPU")
    .NeedsCuda("device-side test workload")
    .Variant("baseline", &CudaOnly::Run)
    .Variant("optimized", &CudaOnly::Run);
