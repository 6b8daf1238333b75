// channels_last (A16): NHWC (ChannelsLast) memory format for model and input.
//
// A training step (SGD) and an inference pass, with the model's 4-D parameters and
// buffers and the input in NCHW (contiguous) or ChannelsLast. Module::to has no memory
// format in LibTorch 1.13, so the 4-D tensors are converted with set_data. SetUp prepares
// one model per format (the second a copy of the first) in every instance, although
// Instance::variant names the one that runs: building only that one would change what the
// memory peaks carry, and is not done yet. Autocast ("amp") is bf16 on every device: the
// CPU's only autocast dtype, and on CUDA the one that needs no loss scaling, since this
// step has no GradScaler and fp16 gradients of these convolutions sit near fp16's
// subnormals.
//
// Models. CPU: the shared SmallCnn (16 channels, 32x32, batch 8), fp32 and amp, each for
// training and inference. CUDA, the article's setting (AMP on NVIDIA GPUs), amp only:
// torchvision's ResNet-50 (workloads::ResNet, the whole network) on 224x224 images at
// batch 256, its training batch (train_amp_resnet50, infer_amp_resnet50). A forward is
// 8.18 GFLOP an image (workloads::ResNetConvWork, from the architecture: 4.09 G
// multiply-adds, the figure torchvision lists as "GFLOPS"), 2.09 TFLOP a batch, 6.28 a
// training step: 8 ms at an H200's bf16 peak, 24 ms for its declared activation traffic
// (Work). The ResNet starts as torchvision's resnet50(zero_init_residual=True) does, each
// Bottleneck's last BatchNorm scale at 0 (Goyal et al.'s ResNet-50 recipe): see
// Equivalence. The values change no kernel a step runs.
//
// Active check: the last step must have run the variant's model (recorded by the body),
// and the format must survive through the network, not just sit on the input: the
// stem's and every residual block's (ResNet: every Bottleneck's) output are recomputed
// and must be ChannelsLast (and plain NCHW for the baseline).
//
// Equivalence: logits and loss, the parameters after the steps, and for the training
// cases per parameter the update over the steps measured against g0, its fp32 NCHW
// gradient at the start (computed in SetUp, the same in both variants' instances): its
// size in fp32 steps, |theta_0 - theta| / (lr |g0|), and its direction,
// cos(theta_0 - theta, g0) (0 and 0 for a parameter whose g0 is rounding noise, under
// 1e-4 of the largest: the conv biases before BatchNorm). The weights alone cannot see an
// update (lr * grad ~1e-4 per step on weights ~0.1); a dropped update (1 of CheckSteps() =
// 2) halves the size, 2 -> 1 step. NHWC convolutions use other kernels (oneDNN blocked
// layouts, other summation orders). SmallCnn (measured, CPU, 2 steps): the formats moved
// the size by at most 0.009 steps and the cosine (>= 0.994) by 0.0012 with autocast,
// 0.0024 and 4e-5 in fp32; logits agree to ~1e-5 in fp32.
// ResNet-50, measured on the CPU with the CUDA cases' code and CPU bf16 autocast at small
// sizes (batch 2 at 224x224 and 96, 4 at 160 and 64, 8 and 32 at 64; unverified on a GPU):
// with torchvision's default initialisation a training-mode ResNet-50 is chaotic at the
// start (BatchNorm's gradient explosion): at the same weights the formats' bf16 logits
// differ by 19% of their RMS, and even in fp32 two steps' updates disagree by ~100% (the
// first step moves the stem's weights by 1.2 times their norm). No tolerance tells that
// from a wrong result. With zero_init_residual each block starts as the identity and the
// formats agree: over the two steps by at most 0.02 in the logits, 0.07 in the update
// size (~2), 0.013 in the cosine, 0.002 in the loss; a dropped update moves the size by
// 1.4-1.7 and the loss by 0.3-1.8. Inference: the blocks' residual branches add 0 at a
// zero scale, so its logits (agreeing to 5e-4) check the stem, the downsampling paths and
// the head; the branches' forward is checked by training, through the bn3 scales' updates.
// Tolerance rtol 5e-2, atol 5e-2, one for the trick and set by ResNet-50's training case:
// the formats needed up to 0.024 in |a - b| / (1 + |b|) there (batch 4 at 64x64; 0.015 at
// 160x160 and 224x224), a dropped update 0.41 (SmallCnn's: ~0.33).
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include <ATen/autocast_mode.h>

#include "harness/trick.h"
#include "third_party/libtorch/compat.h"
#include "workloads/resnet.h"
#include "workloads/workloads.h"

namespace {

using trickbench::workloads::BottleneckImpl;
using trickbench::workloads::ResNet;
using trickbench::workloads::SmallCnn;

// CPU: the shared SmallCnn.
constexpr int64_t kBatch = 8;
constexpr int64_t kImage = 32;
constexpr int64_t kChannels = 16;  // four cases x two variants must fit the 60 s run
constexpr int64_t kBlocks = 2;
// CUDA: torchvision's ResNet-50 at its training batch and image size.
constexpr int64_t kResNetBatch = 256;
constexpr int64_t kResNetImage = 224;
constexpr double kLearningRate = 0.01;

// The "model" axis: "" (the CPU's SmallCnn) or "resnet50" (CUDA).
bool IsResNet(const trickbench::Instance& s) {
  const std::string& model = s.params.String("model");
  if (model.empty()) return false;
  if (model == "resnet50") return true;
  throw std::invalid_argument("channels_last: unknown model " + model);
}

// One run; a training step is three times a forward's FLOP and traffic (ResNet's forward:
// workloads::ResNetConvWork). Bytes: every convolution reads its input and writes its
// output, and a BatchNorm and ReLU (or the residual sum) read and write that output
// again: its input plus five times its output; 2 bytes per element under autocast, 4 in
// fp32. The weights (100 MB for ResNet-50) are left out, under 1%. Working set: the input
// and the activations a step keeps (three per layer to train, two to infer).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const bool training = s.params.String("mode") == "train";
  const double element = s.params.String("precision") == "amp" ? 2 : 4;
  const double passes = training ? 3 : 1;
  const double kept = training ? 3 : 2;
  if (IsResNet(s)) {
    const trickbench::workloads::ResNetSize size;
    const auto per_image = trickbench::workloads::ResNetConvWork(size, kResNetImage);
    const double batch = kResNetBatch;
    const double input =
        4 * static_cast<double>(kResNetBatch * size.in_channels * kResNetImage * kResNetImage);
    return {.flop = passes * 2 * per_image.macs * batch,
            .bytes = input + passes * (per_image.inputs + 5 * per_image.outputs) * batch * element,
            .working_set = input + kept * per_image.outputs * batch * element};
  }
  // The SmallCnn: the stem's and the blocks' 3x3 convolutions (the head's pooling and
  // classifier are negligible), each conv-BN-ReLU layer's activation six times a forward.
  const double convs = 1 + 2 * kBlocks;
  const double pixels = static_cast<double>(kBatch * kImage * kImage);
  const double conv_flop = 2 * pixels * static_cast<double>(kChannels * kChannels * 9);
  const double stem_flop = conv_flop / kChannels * 3;
  const double activation = pixels * kChannels * element;
  const double input = pixels * 3 * 4;
  return {.flop = passes * (stem_flop + (convs - 1) * conv_flop),
          .bytes = input + passes * 6 * convs * activation,
          .working_set = input + kept * convs * activation};
}

// Autocast for one scope on `device`, the previous state restored after it (1.13 has
// no guard class, and its API differs from 2.4+'s per-device functions).
class AutocastScope {
 public:
  AutocastScope(const torch::Device& device, bool enabled) : cuda_(device.is_cuda()) {
    if (!enabled) return;
    active_ = true;
    namespace compat = trickbench::torch_compat;
    const auto type = cuda_ ? at::kCUDA : at::kCPU;
    was_enabled_ = compat::AutocastEnabled(type);
    was_dtype_ = compat::AutocastDtype(type);
    compat::SetAutocastDtype(type, at::kBFloat16);
    compat::SetAutocastEnabled(type, true);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (!active_) return;
    namespace compat = trickbench::torch_compat;
    const auto type = cuda_ ? at::kCUDA : at::kCPU;
    compat::SetAutocastEnabled(type, was_enabled_);
    compat::SetAutocastDtype(type, was_dtype_);
    // Like torch.autocast's exit: the cast-weight cache lives for the outermost scope.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool cuda_ = false, active_ = false, was_enabled_ = false;
  at::ScalarType was_dtype_ = at::kFloat;
};

// Every 4-D parameter and buffer (conv weights) to `format`, in place.
void ToMemoryFormat(torch::nn::Module& model, at::MemoryFormat format) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    if (p.dim() == 4) p.set_data(p.contiguous(format));
  }
  for (auto& b : model.buffers()) {
    if (b.dim() == 4) b.set_data(b.contiguous(format));
  }
}

// A case's network: the SmallCnn (CPU) or ResNet-50 (CUDA), exactly one of them set.
struct Net {
  SmallCnn cnn{nullptr};
  ResNet resnet{nullptr};

  static Net Build(bool resnet) {
    Net n;
    if (resnet) {
      n.resnet = ResNet();
      // torchvision's zero_init_residual: each Bottleneck's last BatchNorm scale at 0.
      torch::NoGradGuard no_grad;
      for (int64_t i = 0; i < 4; ++i) {
        for (const auto& block : *n.resnet->stage(i))
          block.ptr<BottleneckImpl>()->bn3->weight.zero_();
      }
    } else {
      n.cnn = SmallCnn(trickbench::workloads::CnnSize{.channels = kChannels, .blocks = kBlocks});
    }
    return n;
  }
  torch::nn::Module& module() {
    return resnet ? static_cast<torch::nn::Module&>(*resnet)
                  : static_cast<torch::nn::Module&>(*cnn);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return resnet ? resnet->forward(x) : cnn->forward(x);
  }
  // The first of the stem's and the residual blocks' outputs on `x` (recomputed in
  // order) that is not in `format`: "stem", "block 1", "layer3.2"; "" when none.
  std::string FirstNotIn(at::MemoryFormat format, torch::Tensor x) {
    x = resnet ? resnet->Stem(x) : cnn->Stem(x);
    if (!x.is_contiguous(format)) return "stem";
    if (cnn) {
      for (size_t i = 0; i < cnn->blocks().size(); ++i) {
        x = cnn->blocks()[i].forward(x);
        if (!x.is_contiguous(format)) return "block " + std::to_string(i);
      }
      return "";
    }
    for (int64_t i = 0; i < 4; ++i) {
      int64_t j = 0;
      for (auto& bottleneck : *resnet->stage(i)) {  // torchvision's layer1..layer4
        x = bottleneck.forward(x);
        if (!x.is_contiguous(format))
          return "layer" + std::to_string(i + 1) + "." + std::to_string(j);
        ++j;
      }
    }
    return "";
  }
};

struct Formatted {
  Net net;
  std::unique_ptr<torch::optim::SGD> optimizer;
  torch::Tensor input;
};

class ChannelsLast : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    training_ = s.params.String("mode") == "train";
    amp_ = s.params.String("precision") == "amp";
    const bool resnet = IsResNet(s);
    batch_ = resnet ? trickbench::workloads::ImageBatch(kResNetBatch, 3, kResNetImage, kResNetImage,
                                                        1000, device_)
                    : trickbench::workloads::ImageBatch(kBatch, 3, kImage, kImage, 10, device_);
    nchw_ = Make(Net::Build(resnet), at::MemoryFormat::Contiguous);
    torch::nn::Module& model = nchw_.net.module();
    if (training_) {
      // g0, the yardstick of Result()'s update size and direction (before the copy, so
      // the BatchNorm statistics this forward updates are the same in both models).
      model.train();
      model.zero_grad(/*set_to_none=*/true);
      torch::nn::functional::cross_entropy(nchw_.net.forward(nchw_.input), batch_.target)
          .backward();
      for (const auto& p : model.parameters()) {
        initial_.push_back(p.detach().contiguous().clone());
        initial_grad_.push_back(p.grad().detach().contiguous().clone());
      }
      model.zero_grad(/*set_to_none=*/true);
    }
    Net copy = Net::Build(resnet);
    {
      torch::NoGradGuard no_grad;
      const auto from = model.named_parameters();
      for (auto& p : copy.module().named_parameters()) p.value().copy_(from[p.key()]);
      const auto from_buffers = model.named_buffers();
      for (auto& b : copy.module().named_buffers()) b.value().copy_(from_buffers[b.key()]);
    }
    channels_last_ = Make(copy, at::MemoryFormat::ChannelsLast);
  }

  void Nchw() { Run(nchw_); }
  void Nhwc() { Run(channels_last_); }

  trickbench::Tensors Result() override {
    Formatted& f = last_ ? *last_ : nchw_;
    trickbench::Tensors out{logits_.to(torch::kFloat).contiguous(), loss_.to(torch::kFloat)};
    const auto params = trickbench::workloads::Parameters(f.net.module());
    for (const auto& p : params) out.push_back(p.contiguous());
    if (!training_) return out;
    // UpdateInSteps leaves out what has no real gradient at the start: the conv biases
    // before BatchNorm, and ResNet's residual branches (behind a BatchNorm scale of 0).
    const auto [steps, cosines] =
        trickbench::workloads::UpdateInSteps(initial_, params, initial_grad_, kLearningRate);
    out.push_back(steps);
    out.push_back(cosines);
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const bool want_cl = variant == "channels_last";
    Formatted& f = want_cl ? channels_last_ : nchw_;
    const auto format = want_cl ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
    // What the body ran (set by every body), then that its model keeps the format.
    if (last_ != &f)
      return "the last step ran the " + std::string(want_cl ? "NCHW" : "ChannelsLast") + " model";
    if (amp_ && logits_.scalar_type() != at::kBFloat16) {
      return std::string("autocast was off: logits are ") + c10::toString(logits_.scalar_type());
    }
    torch::NoGradGuard no_grad;
    AutocastScope autocast(device_, amp_);
    const std::string lost = f.net.FirstNotIn(format, f.input);
    if (lost.empty()) return "";
    return lost + " output is not " + (want_cl ? "ChannelsLast" : "NCHW-contiguous");
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  Formatted Make(Net net, at::MemoryFormat format) {
    torch::nn::Module& model = net.module();
    model.to(device_);
    ToMemoryFormat(model, format);
    Formatted f;
    f.optimizer = std::make_unique<torch::optim::SGD>(model.parameters(),
                                                      torch::optim::SGDOptions(kLearningRate));
    f.net = std::move(net);
    f.input = batch_.input.contiguous(format);
    return f;
  }

  void Run(Formatted& f) {
    last_ = &f;
    torch::nn::Module& model = f.net.module();
    if (!training_) {
      torch::NoGradGuard no_grad;
      model.eval();
      AutocastScope autocast(device_, amp_);
      logits_ = f.net.forward(f.input);
      loss_ = torch::nn::functional::cross_entropy(logits_.to(torch::kFloat), batch_.target);
      return;
    }
    model.train();
    model.zero_grad(/*set_to_none=*/true);
    {
      AutocastScope autocast(device_, amp_);
      logits_ = f.net.forward(f.input);
      loss_ = torch::nn::functional::cross_entropy(logits_, batch_.target);
    }
    loss_.backward();
    f.optimizer->step();
    logits_ = logits_.detach();
    loss_ = loss_.detach();
  }

  torch::Device device_ = torch::kCPU;
  bool training_ = true, amp_ = false;
  trickbench::workloads::Batch batch_;
  Formatted nchw_, channels_last_;
  Formatted* last_ = nullptr;
  torch::Tensor logits_, loss_;
  trickbench::Tensors initial_, initial_grad_;  // training: theta_0, fp32 NCHW gradient there
};

}  // namespace

TRICKBENCH_TRICK(channels_last, ChannelsLast)
    .Category("Model architecture and training")
    .Source("A16")
    .Claim("8-35% faster (with AMP)")
    .Expect(trickbench::claim::Faster(1.08, 1.35)
                .OnCuda("the article's figure: AMP on NVIDIA GPUs, for ResNet-50 at 224x224"))
    // "train_amp", "infer_fp32", ...; on CUDA "train_amp_resnet50", "infer_amp_resnet50".
    .Axis(trickbench::Axis::String("mode", {"train", "infer"}))
    .Axis(trickbench::Axis::String("precision", {"fp32", "amp"}).OnCuda({"amp"}))
    .Axis(trickbench::Axis::String("model", {""}).OnCuda({"resnet50"}))
    .Work(Work)
    .Trains({"train_fp32", "train_amp", "train_amp_resnet50"})
    .Variant("nchw", &ChannelsLast::Nchw)
    .Variant("channels_last", &ChannelsLast::Nhwc)
    .Tolerance(5e-2, 5e-2);
