// channels_last (A16): NHWC (ChannelsLast) memory format for model and input.
//
// The shared SmallCnn, a training step (SGD) and an inference pass, with the model's
// 4-D parameters and buffers and the input in NCHW (contiguous) or ChannelsLast.
// Module::to has no memory format in LibTorch 1.13, so the 4-D tensors are converted
// with set_data. Cases: fp32, and autocast ("amp": bf16 on every device: the CPU's only
// autocast dtype, and on CUDA the one that needs no loss scaling, since this step has no
// GradScaler and fp16 gradients of these convolutions sit near fp16's subnormals), each
// for training and inference. SetUp prepares one model per
// format (the second a copy of the first) in every instance, although Instance::variant
// names the one that runs: building only that one would change what the memory peaks
// carry, and is not done yet.
//
// Active check: the last step must have run the variant's model (recorded by the body),
// and the format must survive through the network, not just sit on the input: the
// stem's and every residual block's output are recomputed and must be ChannelsLast
// (and plain NCHW for the baseline).
//
// Sizes (ShapeOf): on the CPU the shared SmallCnn at 16 channels, 32x32, batch 8. On
// CUDA, where those sizes are launch-bound, the article's (AMP on NVIDIA GPUs) ResNet-50
// stage shapes, AMP only since the claim is for AMP: batch 256, the 3x3 convolutions of
// stages 2-4 (56x56x64, 28x28x128, 14x14x256) with BatchNorm and ReLU, as SmallCnn
// with in_channels = channels = the stage width and one residual block: three 3x3
// conv-BN-ReLU at the stage shape (the input stands for the stage's activations).
// Each stage's three convolutions are 178 GFLOP a forward (~225 us at an H200's bf16
// peak; batch 64, 56 us, would time launches), 533 GFLOP a training step.
//
// Equivalence: logits and loss, the parameters after the steps, and for the training
// cases per parameter the update over the steps measured against g0, its fp32 NCHW
// gradient at the start (computed in SetUp, the same in both variants' instances): its
// size in fp32 steps, |theta_0 - theta| / (lr |g0|), and its direction,
// cos(theta_0 - theta, g0) (0 and 0 for a parameter whose g0 is rounding noise, under
// 1e-4 of the largest: the conv biases before BatchNorm). The weights alone cannot see an update (lr * grad ~1e-4
// per step on weights ~0.1, under the 1e-2 bf16 needs); a dropped update (1 of
// CheckSteps() = 2) halves the size, 2 -> 1 step, far outside the tolerance, while the
// formats moved it by at most 0.009 steps and the cosine (>= 0.994) by 0.0012 with
// autocast, 0.0024 and 4e-5 in fp32 (measured, CPU, 2 steps; the size is ~2, so
// rtol 1e-2 + atol 1e-2 allows 0.03). NHWC
// convolutions use other kernels (oneDNN blocked layouts, other summation orders).
// Tolerance rtol 1e-2, atol 1e-2, set by the autocast cases: bf16 keeps 8 significant
// bits (0.4% per rounding) and the two formats round at different points through
// seven layers; the fp32 cases agree to ~1e-5, well inside it.
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include <ATen/autocast_mode.h>

#include "harness/trick.h"
#include "third_party/libtorch/compat.h"
#include "workloads/workloads.h"

namespace {

using trickbench::workloads::SmallCnn;

constexpr int64_t kBatch = 8;
constexpr int64_t kImage = 32;
constexpr int64_t kChannels = 16;  // four cases x two variants must fit the 60 s run
constexpr double kLearningRate = 0.01;

struct Shape {
  int64_t batch, in_channels, channels, image, blocks;
};

// The CPU cases keep the small net; on CUDA the "stage" axis names a ResNet-50 stage's
// 3x3 shape, at batch 256 (ResNet-50's training batch): the one place SetUp and Work
// size a case from.
Shape ShapeOf(const trickbench::Instance& s) {
  const std::string& stage = s.params.String("stage");
  if (stage.empty()) return {kBatch, 3, kChannels, kImage, 2};
  if (stage == "resnet50_stage2") return {256, 64, 64, 56, 1};
  if (stage == "resnet50_stage3") return {256, 128, 128, 28, 1};
  if (stage == "resnet50_stage4") return {256, 256, 256, 14, 1};
  throw std::invalid_argument("channels_last: unknown stage " + stage);
}

// One run: the stem's and the blocks' 3x3 convolutions (the head's pooling and
// classifier are negligible), a training step three times a forward's FLOP. Bytes: each
// conv-BN-ReLU layer's activation about six times forward (the conv's read and write,
// BatchNorm's and ReLU's read and write), three times that to train; 2 bytes per
// element under autocast, 4 in fp32. Working set: the input and the activations a step
// keeps (three per layer to train, two to infer).
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const bool training = s.params.String("mode") == "train";
  const double element = s.params.String("precision") == "amp" ? 2 : 4;
  const double convs = static_cast<double>(1 + 2 * shape.blocks);
  const double pixels = static_cast<double>(shape.batch * shape.image * shape.image);
  const double conv_flop = 2 * pixels * static_cast<double>(shape.channels * shape.channels * 9);
  const double stem_flop =
      conv_flop / static_cast<double>(shape.channels) * static_cast<double>(shape.in_channels);
  const double activation = pixels * static_cast<double>(shape.channels) * element;
  const double input = pixels * static_cast<double>(shape.in_channels) * 4;
  const double passes = training ? 3 : 1;
  return {.flop = passes * (stem_flop + (convs - 1) * conv_flop),
          .bytes = input + passes * 6 * convs * activation,
          .working_set = input + (training ? 3 : 2) * convs * activation};
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

struct Formatted {
  SmallCnn model{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer;
  torch::Tensor input;
};

class ChannelsLast : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    training_ = s.params.String("mode") == "train";
    amp_ = s.params.String("precision") == "amp";
    const Shape shape = ShapeOf(s);
    batch_ = trickbench::workloads::ImageBatch(shape.batch, shape.in_channels, shape.image,
                                               shape.image, 10, device_);
    trickbench::workloads::CnnSize size;
    size.in_channels = shape.in_channels;
    size.channels = shape.channels;
    size.blocks = shape.blocks;
    nchw_ = Make(SmallCnn(size), at::MemoryFormat::Contiguous);
    if (training_) {
      // g0, the yardstick of Result()'s update size and direction (before the copy, so
      // the BatchNorm statistics this forward updates are the same in both models).
      nchw_.model->train();
      nchw_.model->zero_grad(/*set_to_none=*/true);
      torch::nn::functional::cross_entropy(nchw_.model->forward(nchw_.input), batch_.target)
          .backward();
      for (const auto& p : nchw_.model->parameters()) {
        initial_.push_back(p.detach().contiguous().clone());
        initial_grad_.push_back(p.grad().detach().contiguous().clone());
      }
      nchw_.model->zero_grad(/*set_to_none=*/true);
    }
    SmallCnn copy(size);
    {
      torch::NoGradGuard no_grad;
      const auto from = nchw_.model->named_parameters();
      for (auto& p : copy->named_parameters()) p.value().copy_(from[p.key()]);
      const auto from_buffers = nchw_.model->named_buffers();
      for (auto& b : copy->named_buffers()) b.value().copy_(from_buffers[b.key()]);
    }
    channels_last_ = Make(copy, at::MemoryFormat::ChannelsLast);
  }

  void Nchw() { Run(nchw_); }
  void Nhwc() { Run(channels_last_); }

  trickbench::Tensors Result() override {
    const Formatted& f = last_ ? *last_ : nchw_;
    trickbench::Tensors out{logits_.to(torch::kFloat).contiguous(), loss_.to(torch::kFloat)};
    const auto params = trickbench::workloads::Parameters(*f.model);
    for (const auto& p : params) out.push_back(p.contiguous());
    if (!training_) return out;
    // The conv biases before BatchNorm have no real gradient: UpdateInSteps leaves them out.
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
    const std::string name = want_cl ? "ChannelsLast" : "NCHW-contiguous";
    // What the body ran (set by every body), then that its model keeps the format.
    if (last_ != &f)
      return "the last step ran the " + std::string(want_cl ? "NCHW" : "ChannelsLast") + " model";
    if (amp_ && logits_.scalar_type() != at::kBFloat16) {
      return std::string("autocast was off: logits are ") + c10::toString(logits_.scalar_type());
    }
    torch::NoGradGuard no_grad;
    AutocastScope autocast(device_, amp_);
    torch::Tensor x = f.model->Stem(f.input);
    if (!x.is_contiguous(format)) return "stem output is not " + name;
    for (size_t i = 0; i < f.model->blocks().size(); ++i) {
      x = f.model->blocks()[i].forward(x);
      if (!x.is_contiguous(format)) return "block " + std::to_string(i) + " output is not " + name;
    }
    return "";
  }

  int64_t ItemsPerRun() const override { return batch_.input.size(0); }

 private:
  Formatted Make(SmallCnn model, at::MemoryFormat format) {
    model->to(device_);
    ToMemoryFormat(*model, format);
    Formatted f;
    f.model = model;
    f.optimizer = std::make_unique<torch::optim::SGD>(model->parameters(),
                                                      torch::optim::SGDOptions(kLearningRate));
    f.input = batch_.input.contiguous(format);
    return f;
  }

  void Run(Formatted& f) {
    last_ = &f;
    if (!training_) {
      torch::NoGradGuard no_grad;
      f.model->eval();
      AutocastScope autocast(device_, amp_);
      logits_ = f.model->forward(f.input);
      loss_ = torch::nn::functional::cross_entropy(logits_.to(torch::kFloat), batch_.target);
      return;
    }
    f.model->train();
    f.model->zero_grad(/*set_to_none=*/true);
    {
      AutocastScope autocast(device_, amp_);
      logits_ = f.model->forward(f.input);
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
    .Expect(
        trickbench::claim::Faster(1.08, 1.35)
            .ForCase("train_amp_resnet50_stage2")
            .OnCuda(
                "the article's figure: AMP convolutions on NVIDIA GPUs, at ResNet-50 stage shapes"))
    .Expect(
        trickbench::claim::Faster(1.08, 1.35)
            .ForCase("train_amp_resnet50_stage3")
            .OnCuda(
                "the article's figure: AMP convolutions on NVIDIA GPUs, at ResNet-50 stage shapes"))
    .Expect(
        trickbench::claim::Faster(1.08, 1.35)
            .ForCase("train_amp_resnet50_stage4")
            .OnCuda(
                "the article's figure: AMP convolutions on NVIDIA GPUs, at ResNet-50 stage shapes"))
    .Expect(
        trickbench::claim::Faster(1.08, 1.35)
            .ForCase("infer_amp_resnet50_stage2")
            .OnCuda(
                "the article's figure: AMP convolutions on NVIDIA GPUs, at ResNet-50 stage shapes"))
    .Expect(
        trickbench::claim::Faster(1.08, 1.35)
            .ForCase("infer_amp_resnet50_stage3")
            .OnCuda(
                "the article's figure: AMP convolutions on NVIDIA GPUs, at ResNet-50 stage shapes"))
    .Expect(
        trickbench::claim::Faster(1.08, 1.35)
            .ForCase("infer_amp_resnet50_stage4")
            .OnCuda(
                "the article's figure: AMP convolutions on NVIDIA GPUs, at ResNet-50 stage shapes"))
    // "train_amp", "infer_fp32", ...; on CUDA "train_amp_resnet50_stage2" ...
    .Axis(trickbench::Axis::String("mode", {"train", "infer"}))
    .Axis(trickbench::Axis::String("precision", {"fp32", "amp"}).OnCuda({"amp"}))
    .Axis(trickbench::Axis::String("stage", {""})
              .OnCuda({"resnet50_stage2", "resnet50_stage3", "resnet50_stage4"}))
    .Work(Work)
    .Trains({"train_fp32", "train_amp", "train_amp_resnet50_stage2", "train_amp_resnet50_stage3",
             "train_amp_resnet50_stage4"})
    .Variant("nchw", &ChannelsLast::Nchw)
    .Variant("channels_last", &ChannelsLast::Nhwc)
    .Tolerance(1e-2, 1e-2);
