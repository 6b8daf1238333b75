// batch_small_ops (B): one op over a batch instead of a loop of ops over small tensors.
//
// y_i = x_i * w_i + b_i for 512 tensors of 64 floats (the shape of a per-parameter
// optimizer update over many small parameters):
//   loop       two ops per tensor: 1024 dispatches, each on 256 bytes
//   foreach    at::_foreach_mul / at::_foreach_add_: two multi-tensor calls. On CUDA
//              they launch a few multi-tensor-apply kernels; LibTorch 1.13's CPU
//              _foreach_ ops are the slow path, a loop of the same per-tensor ops inside
//              the library (so on this CPU they save the caller's loop, not the dispatch)
//   batched    the tensors are rows of one [512, 64] tensor: two ops in all
// The small tensors of the loop and foreach variants are views of the batched rows, so
// every variant reads the same memory. Each element is one correctly rounded multiply
// and one correctly rounded add in every variant: the results are bitwise equal.
#include "harness/kernels.h"
#include "harness/trick.h"

namespace {

constexpr int64_t kTensors = 512;
constexpr int64_t kElementsPerTensor = 64;

class BatchSmallOps : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    x_ = torch::randn({kTensors, kElementsPerTensor}).to(device_);
    w_ = torch::randn({kTensors, kElementsPerTensor}).to(device_);
    b_ = torch::randn({kTensors, kElementsPerTensor}).to(device_);
    xs_ = x_.unbind(0);
    ws_ = w_.unbind(0);
    bs_ = b_.unbind(0);
  }

  void Loop() {
    ys_.resize(kTensors);
    for (int64_t i = 0; i < kTensors; ++i) ys_[i] = xs_[i] * ws_[i] + bs_[i];
    batched_ = torch::Tensor();
    calls_ = 2 * kTensors;
  }

  void Foreach() {
    ys_ = at::_foreach_mul(xs_, ws_);
    at::_foreach_add_(ys_, bs_);
    batched_ = torch::Tensor();
    calls_ = 2;
  }

  void Batched() {
    batched_ = x_ * w_ + b_;
    ys_.clear();
    calls_ = 2;
  }

  trickbench::Tensors Result() override {
    return {batched_.defined() ? batched_ : torch::stack(ys_)};
  }

  std::string Inactive(const std::string& variant) override {
    // What the body dispatched: 2 x 512 small ops, the foreach ops, or two batched ones.
    // On the CPU the foreach ops are a loop over the per-tensor ops (LibTorch's "slow"
    // fallback: only CUDA has fused multi-tensor kernels), so per-tensor dispatches under
    // foreach are expected there; the foreach op itself is the evidence.
    const int64_t small_ops = OpsRun("aten::mul") + OpsRun("aten::add");
    if (variant == "foreach" &&
        (OpsRun("aten::_foreach_mul") == 0 || OpsRun("aten::_foreach_add_") == 0)) {
      return "the run did not call the foreach ops";
    }
    if (variant == "loop" && small_ops < 2 * kTensors)
      return "the run did not loop over the tensors";
    if (variant == "batched" && (small_ops == 0 || small_ops >= 2 * kTensors)) {
      return "the run was not one batched multiply-add (" + std::to_string(small_ops) +
             " mul/add dispatches)";
    }
    if (variant == "batched") {
      if (!batched_.defined() || batched_.sizes() != x_.sizes())
        return "no [512, 64] batched output";
    } else if (static_cast<int64_t>(ys_.size()) != kTensors) {
      return "expected 512 separate output tensors";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"op_calls_per_run", static_cast<double>(calls_)},
            {"tensors", static_cast<double>(kTensors)},
            {"bytes_per_tensor", kElementsPerTensor * 4.0}};
  }

  int64_t ItemsPerRun() const override { return kTensors; }

 private:
  torch::Device device_ = torch::kCPU;
  torch::Tensor x_, w_, b_, batched_;
  std::vector<torch::Tensor> xs_, ws_, bs_, ys_;
  int64_t calls_ = 0;
};

}  // namespace

TRICKBENCH_TRICK(batch_small_ops, BatchSmallOps)
    .Category("Kernels and data operations")
    .Source("B")
    .Claim("large speedup; Python/C++ dispatch overhead dominates small ops")
    .Expect(trickbench::claim::Faster())
    .LaunchBound(
        "the claim is the per-op dispatch and launch cost of 1024 ops on 256-byte tensors, "
        "which two batched ops save")
    .Variant("loop", &BatchSmallOps::Loop)
    .Variant("foreach", &BatchSmallOps::Foreach)
    .Variant("batched", &BatchSmallOps::Batched)
    .Bitwise();
