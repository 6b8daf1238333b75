#include "training/checkpoint.h"

#include <torch/autograd.h>
#include <torch/utils.h>

#include <ATen/core/ivalue.h>

#include <mutex>
#include <optional>
#include <stdexcept>

#include "training/autocast.h"

namespace trickbench::training {
namespace {

torch::Tensor GetRngState(const torch::Device& device) {
  at::Generator gen = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void SetRngState(const torch::Device& device, const torch::Tensor& state) {
  at::Generator gen = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

// The RNG states of the generators a segment on `device` may draw from.
struct RngStates {
  torch::Tensor cpu;
  std::optional<torch::Device> cuda_device;
  torch::Tensor cuda;

  static RngStates Capture(const torch::Device& device) {
    RngStates s;
    s.cpu = GetRngState(torch::kCPU);
    if (device.is_cuda()) {
      s.cuda_device = device;
      s.cuda = GetRngState(device);
    }
    return s;
  }
  void Restore() const {
    SetRngState(torch::kCPU, cpu);
    if (cuda_device) SetRngState(*cuda_device, cuda);
  }
};

// Everything backward needs besides the saved tensors. Held in the autograd context
// as an IValue capsule (saved_data holds IValues only).
struct SegmentRecord : torch::CustomClassHolder {
  Segment segment;
  CheckpointOptions options;
  std::optional<RngStates> rng;
  AutocastState autocast;
  bool input_requires_grad = false;
};

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx,
                               c10::intrusive_ptr<SegmentRecord> record, const torch::Tensor& input,
                               at::TensorList params) {
    // Function::apply already turned grad mode off: nothing is recorded here.
    record->input_requires_grad = input.requires_grad();
    record->autocast = CurrentAutocastState();
    if (record->options.preserve_rng_state) record->rng = RngStates::Capture(input.device());
    torch::Tensor output = record->segment(input);
    std::vector<torch::Tensor> saved{input};
    saved.insert(saved.end(), params.begin(), params.end());
    ctx->save_for_backward(saved);
    ctx->saved_data["record"] = c10::IValue::make_capsule(record);
    return output;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    if (torch::GradMode::is_enabled()) {
      throw std::logic_error("Checkpoint: double backward (create_graph=true) is not supported");
    }
    auto record =
        c10::static_intrusive_pointer_cast<SegmentRecord>(ctx->saved_data["record"].toCapsule());
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    // A fresh leaf for the input, so the recompute's graph ends there.
    torch::Tensor input = saved[0].detach().requires_grad_(record->input_requires_grad);
    torch::Tensor output;
    {
      std::optional<RngStates> callers;
      if (record->rng) {
        callers = RngStates::Capture(input.device());
        record->rng->Restore();
      }
      torch::AutoGradMode grad_mode(true);
      AutocastGuard autocast(record->autocast);
      output = record->segment(input);
      if (callers) callers->Restore();
    }
    std::vector<torch::Tensor> wrt;
    std::vector<size_t> slot;  // index into the returned grads (0 = the segment pointer)
    if (record->input_requires_grad) {
      wrt.push_back(input);
      slot.push_back(1);
    }
    for (size_t i = 1; i < saved.size(); ++i) {
      if (saved[i].requires_grad()) {
        wrt.push_back(saved[i]);
        slot.push_back(i + 1);
      }
    }
    // One entry per forward argument: record, input, then every parameter.
    torch::autograd::variable_list grads(saved.size() + 1);
    if (wrt.empty() || !output.requires_grad()) return grads;
    const auto computed = torch::autograd::grad({output}, wrt, {grad_outputs[0]},
                                                /*retain_graph=*/false, /*create_graph=*/false,
                                                /*allow_unused=*/true);
    for (size_t i = 0; i < computed.size(); ++i) grads[slot[i]] = computed[i];
    return grads;
  }
};

}  // namespace

torch::Tensor Checkpoint(const Segment& segment, const torch::Tensor& input,
                         const std::vector<torch::Tensor>& params,
                         const CheckpointOptions& options) {
  if (!segment) throw std::invalid_argument("Checkpoint: empty segment");
  if (!input.defined()) throw std::invalid_argument("Checkpoint: undefined input");
  auto record = c10::make_intrusive<SegmentRecord>();
  record->segment = segment;
  record->options = options;
  // TensorList, not the vector: custom_function.h counts only Tensor/TensorList
  // arguments as autograd inputs.
  return CheckpointFunction::apply(record, input, at::TensorList(params));
}

torch::Tensor CheckpointSequential(const std::vector<Layer>& layers, int64_t segments,
                                   const torch::Tensor& input, const CheckpointOptions& options) {
  const int64_t n = static_cast<int64_t>(layers.size());
  if (segments < 1 || segments > n) {
    throw std::invalid_argument("CheckpointSequential: segments must be in [1, " +
                                std::to_string(n) + "], got " + std::to_string(segments));
  }
  torch::Tensor x = input;
  int64_t begin = 0;
  for (int64_t s = 0; s < segments; ++s) {
    const int64_t end = n * (s + 1) / segments;  // nearly equal lengths
    // The segment keeps its own copy of the layer functions: backward runs it after
    // this function (and perhaps the caller's vector) is gone.
    std::vector<Segment> fns;
    for (int64_t i = begin; i < end; ++i) fns.push_back(layers[i].forward);
    auto run = [fns = std::move(fns)](const torch::Tensor& in) {
      torch::Tensor y = in;
      for (const auto& f : fns) y = f(y);
      return y;
    };
    if (s + 1 == segments) {
      x = run(x);
    } else {
      std::vector<torch::Tensor> params;
      for (int64_t i = begin; i < end; ++i) {
        params.insert(params.end(), layers[i].params.begin(), layers[i].params.end());
      }
      x = Checkpoint(run, x, params, options);
    }
    begin = end;
  }
  return x;
}

}  // namespace trickbench::training
