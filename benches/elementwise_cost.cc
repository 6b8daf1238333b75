// elementwise_cost (B): element-wise ops cost far more than their FLOPs suggest.
//
// Measured in a network, one BERT encoder layer's forward (workloads/bert_layer.h's
// parameters, at inference: no dropout), split in its two parts, each run on the same
// activations:
//   gemm_part         its matmuls: the Q, K, V and output projections, Q K^T, P V
//                     (with the copies matmul and reshape make to lay the heads out),
//                     and the feed-forward's two GEMMs
//   elementwise_part  the rest: six bias adds, the 1/sqrt(d) scale, softmax, two
//                     residual adds, two LayerNorms, GELU (softmax and LayerNorm have
//                     row reductions, but like the others they touch every element a
//                     few times for a few FLOPs: memory-bound, the article's case)
// Graded as a rate (claim::LowerRate): each part's FLOP per run over the paired rounds'
// time. The element-wise part's rate is lower exactly when its share of the layer's
// time exceeds its share of the layer's FLOPs (t_e / (t_e + t_g) > f_e / (f_e + f_g)
// <=> f_e / t_e < f_g / t_g): the article's claim, with "far" the size of the factor.
// Evidence (Counters, this file's own brief timer): both shares, and
// parts_over_layer_time.
//   CPU   kSmallBertLayer {hidden 128, 4 heads, 512}, [8, 128] tokens: GEMMs 0.47 GFLOP,
//         element-wise 11 MFLOP (2.3 % of the layer's FLOPs)
//   CUDA  BERT-base {768, 12 heads, 3072}, [64, 128] tokens, fp32: GEMMs 119 GFLOP
//         (~2 ms at an H200's ~60 TFLOP/s fp32 without tensor cores, ~150 us at its
//         bf16 peak), element-wise 0.45 GFLOP (0.4 %) over at least 0.58 GB (PartBytes;
//         ~1.1 GB of unfused traffic with the temporaries, ~0.25 ms at 4.3 TB/s); at
//         [32, 128] either part would be under 100 us at an H200's peaks
// FLOP per element, counted generously for the element-wise part (more FLOP credited
// raises its rate, against the claim): add 1, scale 1, softmax 5 (max, subtract, exp,
// sum, divide), LayerNorm 8, GELU 8 (erf as several). GEMMs: 2 per multiply-add.
// Conditions: each part reads the other's outputs from memory, as an unfused layer's
// kernels do; in the whole layer some would still be in cache (the small layer's largest
// tensor is 2 MB), so the split can shift time between the parts: parts_over_layer_time
// (the parts' summed time over the whole staged layer's) shows how far from 1. fp32 on
// both devices; in 16 bit the GEMMs gain far more (tensor cores) than the element-wise
// ops (half the bytes).
//
// Equivalence: Result() is every intermediate of the layer, 7 GEMM outputs and 7
// element-wise outputs. A variant computes its own part afresh and leaves the other's
// as the reference forward (SetUp, run stage by stage) computed it, so each part must
// reproduce the reference bitwise: a part that drops or changes an op differs from the
// baseline's copy. The split is the layer: SetUp checks the staged forward against
// BertLayer's own forward (allclose; the bias is added apart from the GEMM here).
// A variant run with the other's body is caught by Inactive(): the ops it dispatched.
#include <cmath>
#include <stdexcept>

#include "harness/kernels.h"
#include "harness/trick.h"
#include "workloads/bert_layer.h"

namespace {

namespace k = trickbench::kernels;
namespace w = trickbench::workloads;

// One layer's intermediates: the GEMM outputs (*_raw, scores) and the element-wise ones.
struct Activations {
  torch::Tensor q_raw, k_raw, v_raw, scores, attention_raw, intermediate_raw, output_raw;
  torch::Tensor q, k, v, probs, attended, activated, y;
  trickbench::Tensors All() const {
    return {q_raw, k_raw, v_raw, scores, attention_raw, intermediate_raw, output_raw,
            q,     k,     v,     probs,  attended,      activated,        y};
  }
};

struct Shape {
  w::BertLayerSize size;
  int64_t batch, sequence;
};

// The small layer on [8, 128] tokens on the CPU; BERT-base on [64, 128] on CUDA. The one
// place SetUp, Counters and Work size from.
Shape ShapeOf(const trickbench::Instance& s) {
  Shape shape{s.device.is_cuda() ? w::BertLayerSize{} : w::kSmallBertLayer,
              s.device.is_cuda() ? 64 : 8, 128};
  shape.size.dropout = 0;
  return shape;
}

// Attention scores: batch x heads x sequence^2.
int64_t AttentionElements(const Shape& s) {
  return s.batch * s.size.heads * s.sequence * s.sequence;
}

// FLOP of the GEMM part: 2 per multiply-add.
int64_t GemmFlop(const Shape& s) {
  const int64_t h = s.size.hidden, tokens = s.batch * s.sequence;
  return 4 * k::MatmulFlop(tokens, h, h) + 2 * k::MatmulFlop(tokens, h, s.size.intermediate) +
         2 * AttentionElements(s) * 2 * (h / s.size.heads);
}

// FLOP of the element-wise part, counted generously (see the top comment).
int64_t ElementwiseFlop(const Shape& s) {
  const int64_t h = s.size.hidden, tokens = s.batch * s.sequence;
  return tokens * (3 * h + 2 * (2 + 8) * h + (1 + 8) * s.size.intermediate) +
         AttentionElements(s) * (1 + 5);
}

// The bytes a part must at least move, fp32: what it reads (the input, the other part's
// outputs it uses, its parameters) and what it writes, each once. The GEMM outputs
// (q, k, v raw, scores, attention, intermediate, output raw) and the element-wise
// outputs (q, k, v, probs, attended, activated, y) are each 5 x tokens x hidden, the
// scores' elements and tokens x intermediate.
int64_t PartBytes(const Shape& s, bool gemm) {
  const int64_t h = s.size.hidden, I = s.size.intermediate, tokens = s.batch * s.sequence;
  const int64_t outputs = 5 * tokens * h + AttentionElements(s) + tokens * I;
  const int64_t x = tokens * h;
  if (gemm) {
    const int64_t weights = 4 * h * h + 2 * h * I;
    const int64_t reads = 4 * tokens * h + AttentionElements(s) + tokens * I;  // not y
    return 4 * (x + weights + outputs + reads);
  }
  const int64_t params = 9 * h + I;  // six biases, two LayerNorms' gains and biases
  return 4 * (x + params + 2 * outputs);
}

trickbench::CaseWork Work(const trickbench::Instance& s) {
  const Shape shape = ShapeOf(s);
  const bool gemm = s.variant == "gemm_part";
  const double bytes = static_cast<double>(PartBytes(shape, gemm));
  return {.flop = static_cast<double>(gemm ? GemmFlop(shape) : ElementwiseFlop(shape)),
          .bytes = bytes,
          .working_set = bytes};
}

class ElementwiseCost : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    shape_ = ShapeOf(s);
    const w::BertLayerSize& size = shape_.size;
    batch_ = shape_.batch;
    sequence_ = shape_.sequence;
    layer_ = w::BertLayer(size);
    {
      // BERT's init has zero biases and unit LayerNorm gains: a part that skipped them
      // would still match. Trained-looking values make every op change the result.
      torch::NoGradGuard no_grad;
      for (auto& item : layer_->named_parameters()) {
        const std::string& name = item.key();
        torch::Tensor& p = item.value();
        if (name.find("norm.weight") != std::string::npos) {
          p.copy_(1 + 0.1 * torch::randn(p.sizes()));
        } else if (name.find("bias") != std::string::npos) {
          p.copy_(0.1 * torch::randn(p.sizes()));
        }
      }
    }
    layer_->to(device_);
    layer_->eval();
    for (auto& p : layer_->parameters()) p.requires_grad_(false);
    const int64_t h = size.hidden, tokens = batch_ * sequence_;
    x_ = torch::randn({tokens, h}).to(device_);
    for (int stage = 0; stage < kStages; ++stage) {
      Gemm(stage, &reference_);
      Elementwise(stage, &reference_);
    }
    const torch::Tensor expected = layer_->forward(x_.view({batch_, sequence_, h}));
    if (!torch::allclose(reference_.y, expected.view({tokens, h}), 1e-3, 1e-3))
      throw std::logic_error("the staged forward is not BertLayer's forward");

    gemm_flop_ = GemmFlop(shape_);
    elementwise_flop_ = ElementwiseFlop(shape_);
    flop_ = s.variant == "gemm_part" ? gemm_flop_ : elementwise_flop_;
  }

  void GemmPart() { Part(&ElementwiseCost::Gemm, &acts_); }
  void ElementwisePart() { Part(&ElementwiseCost::Elementwise, &acts_); }

  trickbench::Tensors Result() override { return acts_.All(); }

  std::string Inactive(const std::string& variant) override {
    const int64_t gemms = OpsRun("aten::mm") + OpsRun("aten::bmm");
    const int64_t elementwise =
        OpsRun("aten::gelu") + OpsRun("aten::layer_norm") + OpsRun("aten::softmax");
    if (variant == "gemm_part" && (gemms == 0 || elementwise > 0))
      return "the run was not GEMMs only (" + Dispatched(gemms, elementwise) + ")";
    if (variant == "elementwise_part" &&
        (gemms > 0 || OpsRun("aten::gelu") == 0 || OpsRun("aten::layer_norm") == 0 ||
         OpsRun("aten::softmax") == 0))
      return "the run was not the element-wise ops only (" + Dispatched(gemms, elementwise) + ")";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const double gemm_s = SecondsOf(&ElementwiseCost::Gemm);
    const double elementwise_s = SecondsOf(&ElementwiseCost::Elementwise);
    const double layer_s = k::MedianSecondsPerRun(
        [this] {
          c10::InferenceMode inference;
          Activations a;
          for (int stage = 0; stage < kStages; ++stage) {
            Gemm(stage, &a);
            Elementwise(stage, &a);
          }
        },
        device_);
    const bool gemm = variant == "gemm_part";
    auto c =
        k::RateCounters(static_cast<double>(flop_), static_cast<double>(PartBytes(shape_, gemm)),
                        gemm ? gemm_s : elementwise_s, device_, torch::kFloat);
    c["elementwise_flop_share"] = static_cast<double>(elementwise_flop_) /
                                  static_cast<double>(elementwise_flop_ + gemm_flop_);
    c["elementwise_time_share"] = elementwise_s / (elementwise_s + gemm_s);
    c["parts_over_layer_time"] = (elementwise_s + gemm_s) / layer_s;
    return c;
  }

  // FLOP per run: items_per_second (wall time) is then the measured runs' FLOP/s.
  int64_t ItemsPerRun() const override { return flop_; }

 private:
  static constexpr int kStages = 5;
  using Stage = void (ElementwiseCost::*)(int, Activations*);

  // One part: the reference's intermediates, with this part's stages recomputed.
  void Part(Stage stage_fn, Activations* a) {
    c10::InferenceMode inference;
    *a = reference_;
    for (int stage = 0; stage < kStages; ++stage) (this->*stage_fn)(stage, a);
  }

  double SecondsOf(Stage stage_fn) {
    return k::MedianSecondsPerRun(
        [this, stage_fn] {
          Activations a;
          Part(stage_fn, &a);
        },
        device_);
  }

  torch::Tensor Heads(const torch::Tensor& t) const {
    const int64_t heads = layer_->size().heads, hidden = layer_->size().hidden;
    return t.reshape({batch_, sequence_, heads, hidden / heads}).transpose(1, 2);
  }

  // The layer alternates GEMM stage i and element-wise stage i; each reads the other's
  // previous outputs from `a`.
  void Gemm(int stage, Activations* a) {
    const auto& attn = layer_->attention;
    switch (stage) {
      case 0:
        a->q_raw = x_.mm(attn->query->weight.t());
        a->k_raw = x_.mm(attn->key->weight.t());
        a->v_raw = x_.mm(attn->value->weight.t());
        break;
      case 1:
        a->scores = Heads(a->q).matmul(Heads(a->k).transpose(-2, -1));
        break;
      case 2:
        a->attention_raw = a->probs.matmul(Heads(a->v))
                               .transpose(1, 2)
                               .reshape({x_.size(0), x_.size(1)})
                               .mm(attn->output->weight.t());
        break;
      case 3:
        a->intermediate_raw = a->attended.mm(layer_->intermediate->weight.t());
        break;
      case 4:
        a->output_raw = a->activated.mm(layer_->output->weight.t());
        break;
    }
  }

  void Elementwise(int stage, Activations* a) {
    const auto& attn = layer_->attention;
    const std::vector<int64_t> hidden{layer_->size().hidden};
    switch (stage) {
      case 0:
        a->q = a->q_raw + attn->query->bias;
        a->k = a->k_raw + attn->key->bias;
        a->v = a->v_raw + attn->value->bias;
        break;
      case 1:
        a->probs = (a->scores / std::sqrt(static_cast<double>(hidden[0] / layer_->size().heads)))
                       .softmax(-1);
        break;
      case 2:
        a->attended = torch::layer_norm(x_ + (a->attention_raw + attn->output->bias), hidden,
                                        layer_->attention_norm->weight,
                                        layer_->attention_norm->bias, w::kBertLayerNormEps);
        break;
      case 3:
        a->activated = torch::gelu(a->intermediate_raw + layer_->intermediate->bias);
        break;
      case 4:
        a->y = torch::layer_norm(a->attended + (a->output_raw + layer_->output->bias), hidden,
                                 layer_->output_norm->weight, layer_->output_norm->bias,
                                 w::kBertLayerNormEps);
        break;
    }
  }

  static std::string Dispatched(int64_t gemms, int64_t elementwise) {
    return std::to_string(gemms) + " mm/bmm, " + std::to_string(elementwise) +
           " gelu/layer_norm/softmax";
  }

  torch::Device device_ = torch::kCPU;
  Shape shape_{};
  w::BertLayer layer_{nullptr};
  int64_t batch_ = 0, sequence_ = 0;
  torch::Tensor x_;
  Activations reference_, acts_;
  int64_t gemm_flop_ = 0, elementwise_flop_ = 0, flop_ = 0;
};

}  // namespace

TRICKBENCH_TRICK(elementwise_cost, ElementwiseCost)
    .Category("Kernels and data operations")
    .Source("B")
    .Claim("element-wise ops cost far more than their FLOPs suggest (memory access cost)")
    .Expect(trickbench::claim::LowerRate("flop_per_run"))
    .Work(Work)
    .TrafficBound()
    .Variant("gemm_part", &ElementwiseCost::GemmPart)
    .Variant("elementwise_part", &ElementwiseCost::ElementwisePart)
    .Bitwise();
