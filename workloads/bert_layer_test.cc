#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/utils.h>

#include "workloads/bert_layer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace trickbench::workloads {
namespace {

int64_t CountParameters(const torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

using Shape = std::vector<int64_t>;

// Rows [begin, end) of a Linear's output, computed on their own.
torch::Tensor LinearRows(const torch::nn::Linear& linear, const torch::Tensor& x, int64_t begin,
                         int64_t end) {
  return x.matmul(linear->weight.slice(0, begin, end).t()) + linear->bias.slice(0, begin, end);
}

torch::Tensor Apply(const torch::nn::Linear& linear, const torch::Tensor& x) {
  return LinearRows(linear, x, 0, linear->weight.size(0));
}

// The paper's attention one head at a time: Attention(Q, K, V) = softmax(Q K^T / sqrt(d)) V,
// heads concatenated, then the output projection. Independent of the module's reshapes.
torch::Tensor AttentionByHand(const BertSelfAttention& attention, const torch::Tensor& x,
                              int64_t heads) {
  const int64_t width = x.size(2) / heads;
  std::vector<torch::Tensor> per_head;
  for (int64_t h = 0; h < heads; ++h) {
    const auto q = LinearRows(attention->query, x, h * width, (h + 1) * width);
    const auto k = LinearRows(attention->key, x, h * width, (h + 1) * width);
    const auto v = LinearRows(attention->value, x, h * width, (h + 1) * width);
    const auto scores = q.matmul(k.transpose(1, 2)) / std::sqrt(static_cast<double>(width));
    per_head.push_back(torch::softmax(scores, -1).matmul(v));
  }
  return Apply(attention->output, torch::cat(per_head, -1));
}

torch::Tensor LayerNormByHand(const torch::nn::LayerNorm& norm, const torch::Tensor& x) {
  const auto mean = x.mean(-1, /*keepdim=*/true);
  const auto variance = (x - mean).pow(2).mean(-1, /*keepdim=*/true);
  return (x - mean) / (variance + kBertLayerNormEps).sqrt() * norm->weight + norm->bias;
}

torch::Tensor GeluErf(const torch::Tensor& x) { return 0.5 * x * (1 + torch::erf(x / M_SQRT2)); }

TEST(BertLayer, HasBertBasesParameterCount) {
  const BertLayer layer;
  // Q, K, V, output: 4 x (768 x 768 + 768); feed-forward 768 x 3072 + 3072 + 3072 x 768 +
  // 768; two LayerNorms of 2 x 768.
  EXPECT_EQ(CountParameters(*layer), 7'087'872);
  EXPECT_EQ(CountParameters(*layer->attention), 4 * (768 * 768 + 768));
  EXPECT_EQ(layer->named_parameters().size(), 16u);  // 6 Linear and 2 LayerNorm, 2 each
}

TEST(BertLayer, KeepsTheShapeAndEndsInLayerNorm) {
  BertLayer layer;
  layer->eval();
  torch::NoGradGuard no_grad;
  const auto y = layer->forward(torch::randn({2, 8, 768}));
  EXPECT_EQ(y.sizes(), (Shape{2, 8, 768}));
  // Post-LN with LayerNorm's initial gain 1 and bias 0: every token comes out at mean 0,
  // variance 1 (a pre-LN layer would end on the unnormalised residual sum).
  EXPECT_LT(y.mean(-1).abs().max().item<double>(), 1e-4);
  EXPECT_LT((y.var(-1, /*unbiased=*/false) - 1).abs().max().item<double>(), 1e-3);
}

TEST(BertLayer, IsTheFormulaTermForTerm) {
  torch::manual_seed(0);
  const BertLayerSize size{.hidden = 24, .heads = 3, .intermediate = 40, .dropout = 0};
  BertLayer layer(size);
  layer->to(torch::kDouble);
  {
    // BERT starts biases at 0 and LayerNorm at (1, 0); random ones make each term count.
    torch::NoGradGuard no_grad;
    for (auto& p : layer->parameters()) p.normal_(0, 0.5);
  }
  const auto x = torch::randn({2, 5, size.hidden}, torch::kDouble);
  const auto attended =
      LayerNormByHand(layer->attention_norm, x + AttentionByHand(layer->attention, x, size.heads));
  const auto fed = Apply(layer->output, GeluErf(Apply(layer->intermediate, attended)));
  const auto expected = LayerNormByHand(layer->output_norm, attended + fed);
  // In training mode: dropout 0 must leave it deterministic too.
  const auto got = layer->forward(x);
  EXPECT_TRUE(torch::allclose(got, expected, /*rtol=*/1e-9, /*atol=*/1e-9))
      << (got - expected).abs().max().item<double>();
  EXPECT_TRUE(torch::allclose(layer->attention->forward(x),
                              AttentionByHand(layer->attention, x, size.heads), 1e-9, 1e-9));
}

TEST(BertLayer, DropoutActsOnlyInTraining) {
  torch::manual_seed(0);
  BertLayer layer(kSmallBertLayer);
  const auto x = torch::randn({2, 16, kSmallBertLayer.hidden});
  EXPECT_FALSE(torch::equal(layer->forward(x), layer->forward(x)));
  layer->eval();
  EXPECT_TRUE(torch::equal(layer->forward(x), layer->forward(x)));
}

TEST(SmallBertLayer, TrainsEveryParameter) {
  torch::manual_seed(0);
  BertLayer layer(kSmallBertLayer);
  EXPECT_EQ(CountParameters(*layer), 4 * (128 * 128 + 128) + 2 * 128 * 512 + 512 + 128 + 4 * 128);
  const auto y = layer->forward(torch::randn({4, 16, kSmallBertLayer.hidden}));
  EXPECT_EQ(y.sizes(), (Shape{4, 16, kSmallBertLayer.hidden}));
  // A loss LayerNorm cannot flatten (the sum of a normalised row is always 0).
  (y * torch::randn_like(y)).sum().backward();
  for (const auto& p : layer->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
  }
}

TEST(BertSelfAttention, HeadsMustDivideTheHiddenWidth) {
  EXPECT_THROW(BertSelfAttention(BertLayerSize{.hidden = 10, .heads = 3}), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench::workloads
