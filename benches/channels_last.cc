// channels_last (A16): NHWC (ChannelsLast) memory format for model and input.
//
// The shared SmallCnn, a training step (SGD) and an inference pass, with the model's
// 4-D parameters and buffers and the input in NCHW (contiguous) or ChannelsLast.
// Module::to has no memory format in LibTorch 1.13, so the 4-D tensors are converted
// with set_data. Cases: fp32, and autocast ("amp": bf16 on CPU, the only CPU autocast
// dtype; fp16 on CUDA), each for training and inference. SetUp prepares one model per
// format (the second a copy of the first) because it cannot know which variant runs.
//
// Active check: the format must survive through the network, not just sit on the
// input: the stem's and every residual block's output are recomputed and must be
// ChannelsLast (and plain NCHW for the baseline).
//
// Equivalence: logits and loss, and the parameters after the steps. NHWC convolutions
// use other kernels (oneDNN blocked layouts, other summation orders). Tolerance
// rtol 1e-2, atol 1e-2, set by the autocast cases: bf16 keeps 8 significant bits
// (0.4% per rounding) and the two formats round at different points through seven
// layers; the fp32 cases agree to ~1e-5, well inside it.
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
    compat::SetAutocastDtype(type, cuda_ ? at::kHalf : at::kBFloat16);
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
  void SetUp(const trickbench::Setting& s) override {
    device_ = s.device;
    training_ = s.case_name.rfind("train", 0) == 0;
    amp_ = s.case_name.find("amp") != std::string::npos;
    batch_ = trickbench::workloads::ImageBatch(kBatch, 3, kImage, kImage, 10, device_);
    trickbench::workloads::CnnSize size;
    size.channels = kChannels;
    nchw_ = Make(SmallCnn(size), at::MemoryFormat::Contiguous);
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
    for (const auto& p : trickbench::workloads::Parameters(*f.model)) out.push_back(p.contiguous());
    return out;
  }

  std::string Inactive(const std::string& variant) override {
    const bool want_cl = variant == "channels_last";
    Formatted& f = want_cl ? channels_last_ : nchw_;
    const auto format = want_cl ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
    const std::string name = want_cl ? "ChannelsLast" : "NCHW-contiguous";
    if (amp_ && logits_.scalar_type() != (device_.is_cuda() ? at::kHalf : at::kBFloat16)) {
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

  int64_t ItemsPerRun() const override { return kBatch; }

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
};

}  // namespace

TRICKBENCH_TRICK(channels_last, ChannelsLast)
    .Category("Model architecture and training")
    .Source("A16")
    .Claim("8-35% faster (with AMP)")
    .Expect(trickbench::claim::Faster(1.08, 1.35).ForCase("train_amp").OnCuda("the article's figure: AMP convolutions on NVIDIA GPUs"))
    .Expect(trickbench::claim::Faster(1.08, 1.35).ForCase("infer_amp").OnCuda("the article's figure: AMP convolutions on NVIDIA GPUs"))
    .Cases({"train_fp32", "train_amp", "infer_fp32", "infer_amp"})
    .Trains({"train_fp32", "train_amp"})
    .MutationUndetected("channels_last", "the train cases: Inactive() checks the module's memory format set in SetUp, not the activations the body produced")
    .Variant("nchw", &ChannelsLast::Nchw)
    .Variant("channels_last", &ChannelsLast::Nhwc)
    .Tolerance(1e-2, 1e-2);
