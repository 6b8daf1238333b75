// avoid_host_sync (A5): keep the running loss on the device, read it once.
//
// Thirty-two SGD steps of a small MLP. The baseline reads every step's loss to the
// host with .item() (on a GPU each read waits for the queue to drain and copies 4
// bytes back); the optimized variant adds the detached loss into a device tensor and
// reads that once after the last step. On CPU there is no queue to drain: the cost
// left is .item()'s dispatch, so little is expected there.
//
// Both accumulate in double the same float losses in the same order, so the total is
// bitwise equal, as are the trained parameters.
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>

#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

constexpr int kSteps = 32;

class AvoidHostSync : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    model_ = wl::Mlp({.in = 64, .hidden = 128, .out = 10, .layers = 2}, s.device);
    optimizer_ =
        std::make_unique<torch::optim::SGD>(model_->parameters(), torch::optim::SGDOptions(0.01));
    for (int i = 0; i < kSteps; ++i)
      batches_.push_back(wl::ClassificationBatch(32, 64, 10, s.device));
    device_ = s.device;
  }

  void ItemEveryStep() {
    host_reads_ = 0;
    double total = 0;
    for (const auto& batch : batches_) {
      total += static_cast<double>(Step(batch).item<float>());
      ++host_reads_;
    }
    total_ = torch::tensor(total, torch::kDouble);
  }

  void ReadOnce() {
    host_reads_ = 0;
    torch::Tensor running = torch::zeros({}, torch::TensorOptions(torch::kDouble).device(device_));
    for (const auto& batch : batches_) running.add_(Step(batch).detach().to(torch::kDouble));
    total_ = torch::tensor(running.item<double>(), torch::kDouble);
    ++host_reads_;
  }

  trickbench::Tensors Result() override {
    trickbench::Tensors out = wl::Parameters(*model_);
    out.push_back(total_);
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    if (variant == "read_once" && host_reads_ != 1) {
      return std::to_string(host_reads_) + " host reads per run, expected 1";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"host_reads_per_run", static_cast<double>(host_reads_)}};
  }

  int64_t ItemsPerRun() const override { return kSteps; }

 private:
  torch::Tensor Step(const wl::Batch& batch) {
    model_->zero_grad(/*set_to_none=*/true);
    return wl::TrainStep(model_, *optimizer_, batch);
  }

  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  std::vector<wl::Batch> batches_;
  torch::Device device_ = torch::kCPU;
  torch::Tensor total_;
  int host_reads_ = 0;
};

}  // namespace

TRICKBENCH_TRICK(avoid_host_sync, AvoidHostSync)
    .Category("Data loading")
    .Source("A5")
    .Claim("fewer syncs and transfers")
    .Expect(trickbench::claim::Faster().OnCuda(
        "a host read waits for the device only on CUDA; on the CPU it is a load"))
    .LaunchBound("its claim is the cost of a host sync per step, which small steps expose")
    .Variant("item_every_step", &AvoidHostSync::ItemEveryStep)
    .Variant("read_once", &AvoidHostSync::ReadOnce)
    .Bitwise();
