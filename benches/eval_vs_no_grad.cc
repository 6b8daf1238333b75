// eval_vs_no_grad (A14, B): model.eval() and NoGradGuard change different things.
//
// One forward of a CNN with BatchNorm in every block and Dropout before its classifier
// (the Dropout added, between the last block and the pooling head): on the CPU the
// shared SmallCnn (16 channels, 2 blocks, 32 images of 32x32); on CUDA, case "resnet50",
// torchvision's ResNet-50 (workloads/resnet.h) on 256 images of 224x224, an inference
// batch. Four ways: train mode under grad (baseline), eval mode under grad (`eval_only`),
// train mode under NoGradGuard (`no_grad_only`), and both. eval() switches layer
// behaviour: Dropout off, BatchNorm normalizing with its running statistics and not
// updating them; autograd still records the graph. NoGradGuard switches autograd off
// (no graph, no saved activations: the memory and time the article promises) and changes
// no layer: Dropout still drops and BatchNorm still updates its running statistics,
// which is why "no_grad alone" is a wrong validation loop.
//
// Equivalence compares what must agree where the math is the same. Result() holds a
// train-mode slot (output and BatchNorm buffers after the runs) and an eval-mode slot:
// the slot of the instance's own mode is what its body produced; the other is replayed
// from the state SetUp left (buffers and RNG restored, the same number of forwards).
// So no_grad_only must match the baseline's train-mode output and running statistics
// bitwise (same dropout masks: the same draws from the same generator), and the eval
// variants must match the eval-mode output the baseline's instance replays, bitwise.
// Inactive() checks the effect of each switch: the body's output records a graph or
// not, the layers were in the mode the variant names, and the running statistics moved
// or stayed put. The CPU case checks all this; the ResNet-50 case is unverified on a GPU
// (its code run on the CPU at 2 images: the variants agreed bitwise and were active).
//
// Claims: time and memory for the no_grad variants only. eval() claims neither (skipping
// the dropout mask and the batch statistics saves a little work, but the article's
// point is that eval() is not a substitute for no_grad), so eval_only has no Expect().
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/utils.h>

#include <algorithm>

#include "determinism/seed.h"
#include "harness/trick.h"
#include "workloads/resnet.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

constexpr char kCudaCase[] = "resnet50";

// The case's network and batch: the one place SetUp and Work() read them.
struct Shape {
  bool resnet50;    // else SmallCnn of `cnn`
  wl::CnnSize cnn;  // SmallCnn's size (CPU)
  int64_t batch, image;
};
Shape ShapeOf(const trickbench::Instance& s) {
  if (s.params.String("case") == kCudaCase) return {.resnet50 = true, .batch = 256, .image = 224};
  return {.cnn = {.channels = 16, .blocks = 2}, .batch = 32, .image = 32};
}

// SmallCnn or ResNet-50 with Dropout between its last block and its head.
class NetImpl : public torch::nn::Module {
 public:
  explicit NetImpl(const Shape& shape) {
    if (shape.resnet50) {
      resnet_ = register_module("resnet", wl::ResNet());
    } else {
      cnn_ = register_module("cnn", wl::SmallCnn(shape.cnn));
    }
    dropout_ = register_module("dropout", torch::nn::Dropout(0.5));
  }

  torch::Tensor forward(const torch::Tensor& input) {
    if (resnet_) {
      torch::Tensor x = resnet_->Stem(input);
      for (int64_t i = 0; i < 4; ++i) x = resnet_->stage(i)->forward(x);
      return resnet_->Head(dropout_->forward(x));
    }
    torch::Tensor x = cnn_->Stem(input);
    for (auto& block : cnn_->blocks()) x = block.forward(x);
    return cnn_->Head(dropout_->forward(x));
  }

 private:
  wl::SmallCnn cnn_{nullptr};
  wl::ResNet resnet_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(Net);

bool TrainMath(const std::string& variant) {
  return variant == "train_grad" || variant == "no_grad_only";
}
bool NoGrad(const std::string& variant) {
  return variant == "no_grad_only" || variant == "eval_and_no_grad";
}

class EvalVsNoGrad : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    variant_ = s.variant;
    const Shape shape = ShapeOf(s);
    net_ = Net(shape);
    net_->to(s.device);
    input_ = torch::randn({shape.batch, 3, shape.image, shape.image}).to(s.device);
    buffers_at_setup_ = CloneBuffers();
    rng_at_setup_ = trickbench::CaptureRngState();  // the dropout masks the runs will draw
  }

  void TrainGrad() { Forward(/*train=*/true, /*grad=*/true); }
  void EvalOnly() { Forward(false, true); }
  void NoGradOnly() { Forward(true, false); }
  void EvalAndNoGrad() { Forward(false, false); }

  trickbench::Tensors Result() override {
    trickbench::Tensors train = TrainMath(variant_) ? Observed() : Replayed(true);
    const trickbench::Tensors eval = TrainMath(variant_) ? Replayed(false) : Observed();
    train.insert(train.end(), eval.begin(), eval.end());
    return train;
  }

  std::string Inactive(const std::string& variant) override {
    if (out_.requires_grad() == NoGrad(variant)) {
      return NoGrad(variant) ? "the output records an autograd graph"
                             : "the output records no autograd graph";
    }
    if (net_->is_training() != TrainMath(variant)) {
      return std::string("the layers ran in ") + (net_->is_training() ? "train" : "eval") + " mode";
    }
    const double moved = RunningStatsChange();
    if (TrainMath(variant) && moved == 0) return "BatchNorm running statistics did not move";
    if (!TrainMath(variant) && moved != 0) return "BatchNorm running statistics moved";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"autograd_graph_recorded", out_.requires_grad() ? 1.0 : 0.0},
            {"layers_in_train_mode", net_->is_training() ? 1.0 : 0.0},
            {"bn_running_stats_max_change", RunningStatsChange()}};
  }

  int64_t ItemsPerRun() const override { return input_.size(0); }

 private:
  void Forward(bool train, bool grad) {
    net_->train(train);
    torch::AutoGradMode mode(grad);
    out_ = net_->forward(input_);
    ++runs_;
  }

  trickbench::Tensors CloneBuffers() {
    trickbench::Tensors b;
    for (const auto& t : net_->buffers()) b.push_back(t.detach().clone());
    return b;
  }

  void LoadBuffers(const trickbench::Tensors& from) {
    torch::NoGradGuard no_grad;
    const auto buffers = net_->buffers();
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(from[i]);
  }

  double RunningStatsChange() {
    double max = 0;
    const auto now = net_->buffers();
    for (size_t i = 0; i < now.size(); ++i) {
      if (!now[i].is_floating_point()) continue;  // num_batches_tracked
      max = std::max(max, (now[i] - buffers_at_setup_[i]).abs().max().item<double>());
    }
    return max;
  }

  // Output and buffers after this instance's runs.
  trickbench::Tensors Observed() {
    trickbench::Tensors r = {out_.detach().clone()};
    for (auto& b : CloneBuffers()) r.push_back(b);
    return r;
  }

  // The same for the other mode: as many forwards from SetUp's buffers and RNG state,
  // then everything put back as it was.
  trickbench::Tensors Replayed(bool train) {
    const trickbench::Tensors buffers = CloneBuffers();
    const trickbench::RngState rng = trickbench::CaptureRngState();
    const bool was_training = net_->is_training();
    LoadBuffers(buffers_at_setup_);
    trickbench::RestoreRngState(rng_at_setup_);
    net_->train(train);
    torch::Tensor out;
    {
      torch::NoGradGuard no_grad;  // same kernels, same values: no_grad_only checks that
      for (int64_t i = 0; i < runs_; ++i) out = net_->forward(input_);
    }
    trickbench::Tensors r = {out};
    for (auto& b : CloneBuffers()) r.push_back(b);
    LoadBuffers(buffers);
    trickbench::RestoreRngState(rng);
    net_->train(was_training);
    return r;
  }

  std::string variant_;
  Net net_{nullptr};
  torch::Tensor input_, out_;
  trickbench::Tensors buffers_at_setup_;
  trickbench::RngState rng_at_setup_;
  int64_t runs_ = 0;
};

// SmallCnn's convolutions per image, as workloads::ResNetConvWork counts ResNet-50's: 3x3
// at full resolution, the stem's and two a block.
wl::ConvWork SmallCnnConvWork(const wl::CnnSize& cnn, int64_t image) {
  wl::ConvWork c;
  c.AddConv(cnn.in_channels, cnn.channels, 3, image, 1);
  for (int64_t b = 0; b < 2 * cnn.blocks; ++b) c.AddConv(cnn.channels, cnn.channels, 3, image, 1);
  return c;
}

// One forward. FLOP: the convolutions (and ResNet-50's classifier: ResNetConvWork).
// Bytes: every conv output written, read and written by BatchNorm and ReLU, read by the
// next layer (6 passes), in train mode read once more for the batch statistics; the
// weights read once.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const wl::ConvWork per_image = shape.resnet50 ? wl::ResNetConvWork(wl::ResNetSize{}, shape.image)
                                                : SmallCnnConvWork(shape.cnn, shape.image);
  const double n = static_cast<double>(shape.batch), weights = per_image.weights;
  const double outputs = per_image.outputs * n;
  const double passes = TrainMath(s.variant) ? 7 : 6;
  return {.flop = 2 * per_image.macs * n,
          .bytes = 4 * (weights + passes * outputs),
          .working_set = 4 * (weights + outputs)};
}

}  // namespace

TRICKBENCH_TRICK(eval_vs_no_grad, EvalVsNoGrad)
    .Category("Model architecture and training")
    .Source("A14, B")
    .Claim(
        "eval() changes layer behaviour, not autograd; no_grad saves memory and time, not "
        "behaviour")
    .Expect(trickbench::claim::LessMemory().ForVariant("no_grad_only"))
    .Expect(trickbench::claim::Faster().ForVariant("no_grad_only"))
    .Expect(trickbench::claim::LessMemory().ForVariant("eval_and_no_grad"))
    .Expect(trickbench::claim::Faster().ForVariant("eval_and_no_grad"))
    // CUDA: about 2.1 TFLOP and 70 GB of activation traffic a forward. Under grad 256
    // images keep about 22 GB of activations for backward (the CPU meter read 87 MB an
    // image), twice that at the peak (out_ holds the last run's graph while the next one
    // runs): well inside an H200's 139 GiB.
    .CudaCases({kCudaCase})
    .Work(Work)
    .Variant("train_grad", &EvalVsNoGrad::TrainGrad)
    .Variant("eval_only", &EvalVsNoGrad::EvalOnly)
    .Variant("no_grad_only", &EvalVsNoGrad::NoGradOnly)
    .Variant("eval_and_no_grad", &EvalVsNoGrad::EvalAndNoGrad)
    .Bitwise();
