#include "workloads/bert_layer.h"

#include <torch/nn/init.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/utils.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace trickbench::workloads {

namespace {

// Initialised as BERT is (initializer_range 0.02, zero bias). LibTorch's default,
// U(+-1/sqrt(in)), is close at 768 inputs (std 0.021) but half that at the feed-forward's
// 3072 (0.010), and its biases are not zero: a trick's first steps would differ from BERT's.
torch::nn::Linear BertLinear(int64_t in, int64_t out) {
  torch::nn::Linear linear(in, out);
  torch::NoGradGuard no_grad;
  torch::nn::init::normal_(linear->weight, /*mean=*/0, /*std=*/0.02);
  torch::nn::init::zeros_(linear->bias);
  return linear;
}

torch::nn::LayerNorm BertLayerNorm(int64_t hidden) {
  return torch::nn::LayerNorm(
      torch::nn::LayerNormOptions(std::vector<int64_t>{hidden}).eps(kBertLayerNormEps));
}

}  // namespace

BertSelfAttentionImpl::BertSelfAttentionImpl(const BertLayerSize& size) : heads_(size.heads) {
  if (size.heads < 1 || size.hidden % size.heads != 0) {
    throw std::invalid_argument("BertSelfAttention: " + std::to_string(size.heads) +
                                " heads do not divide hidden " + std::to_string(size.hidden));
  }
  query = register_module("query", BertLinear(size.hidden, size.hidden));
  key = register_module("key", BertLinear(size.hidden, size.hidden));
  value = register_module("value", BertLinear(size.hidden, size.hidden));
  output = register_module("output", BertLinear(size.hidden, size.hidden));
  probs_dropout = register_module("probs_dropout", torch::nn::Dropout(size.dropout));
}

torch::Tensor BertSelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t batch = x.size(0), sequence = x.size(1), hidden = x.size(2);
  const int64_t head_width = hidden / heads_;
  // [batch, sequence, hidden] -> [batch, heads, sequence, head_width]
  auto split_heads = [&](const torch::Tensor& t) {
    return t.reshape({batch, sequence, heads_, head_width}).transpose(1, 2);
  };
  const auto q = split_heads(query->forward(x));
  const auto k = split_heads(key->forward(x));
  const auto v = split_heads(value->forward(x));
  const auto scores = q.matmul(k.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_width));
  const auto probs = probs_dropout->forward(scores.softmax(-1));
  // Heads back side by side: [batch, sequence, hidden]; reshape copies the transposed view.
  const auto context = probs.matmul(v).transpose(1, 2).reshape({batch, sequence, hidden});
  return output->forward(context);
}

BertLayerImpl::BertLayerImpl(const BertLayerSize& size) : size_(size) {
  attention = register_module("attention", BertSelfAttention(size));
  attention_norm = register_module("attention_norm", BertLayerNorm(size.hidden));
  intermediate = register_module("intermediate", BertLinear(size.hidden, size.intermediate));
  output = register_module("output", BertLinear(size.intermediate, size.hidden));
  output_norm = register_module("output_norm", BertLayerNorm(size.hidden));
  dropout = register_module("dropout", torch::nn::Dropout(size.dropout));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor& x) {
  const auto attended = attention_norm->forward(x + dropout->forward(attention->forward(x)));
  // GELU exact (erf), as BERT's "gelu", not the tanh approximation.
  const auto fed = output->forward(torch::gelu(intermediate->forward(attended)));
  return output_norm->forward(attended + dropout->forward(fed));
}

torch::nn::Sequential BertFeedForwardHead(const torch::Device& device) {
  torch::nn::Sequential m(torch::nn::LayerNorm(torch::nn::LayerNormOptions({kBertBaseHidden})),
                          torch::nn::Linear(kBertBaseHidden, kBertBaseFfn), torch::nn::GELU(),
                          torch::nn::Linear(kBertBaseFfn, kBertBaseHidden),
                          torch::nn::Linear(kBertBaseHidden, 2));
  m->to(device);
  return m;
}

}  // namespace trickbench::workloads
