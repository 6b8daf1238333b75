// One BERT-base encoder layer (Devlin et al. 2018; Hugging Face's BertLayer), in LibTorch
// modules, so tricks measured on a transformer measure the block people train: multi-head
// self-attention from four Linear layers (Q, K, V, output), a GELU feed-forward, each
// followed by dropout, the residual sum and LayerNorm (post-LN, as BERT).
//
//   auto layer = trickbench::workloads::BertLayer();   // 7,087,872 parameters
//   auto y = layer->forward(torch::randn({8, 128, 768}));  // [batch, sequence, hidden]
//
//   // The same layer for a 2-core CPU (198,272 parameters; a forward and backward of
//   // [8, 64, 128] took ~11 ms there, [32, 64, 128] ~40 ms):
//   auto small = trickbench::workloads::BertLayer(trickbench::workloads::kSmallBertLayer);
//
// The attention is written out (softmax(Q K^T / sqrt(d)) V), not a fused kernel: what a
// trick that fuses it is compared with. No attention mask: every token sees every token.
#pragma once

#include <torch/types.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <cstdint>

namespace trickbench::workloads {

struct BertLayerSize {
  int64_t hidden = 768;
  int64_t heads = 12;  // must divide hidden
  int64_t intermediate = 3072;
  // On the attention probabilities and on both residual branches. 0 makes a training
  // forward deterministic (a check compares two runs).
  double dropout = 0.1;
};

// BERT-base's layer at 1/6 the width, with BERT's 64-wide heads kept narrower (32) so
// that the attention is still split across several heads.
inline constexpr BertLayerSize kSmallBertLayer{
    .hidden = 128, .heads = 4, .intermediate = 512, .dropout = 0.1};

// BERT's LayerNorm epsilon (layer_norm_eps in its config), not LibTorch's 1e-5.
inline constexpr double kBertLayerNormEps = 1e-12;

// Multi-head self-attention up to and including the output projection (the residual and
// LayerNorm belong to BertLayer). [batch, sequence, hidden] in and out.
class BertSelfAttentionImpl : public torch::nn::Module {
 public:
  explicit BertSelfAttentionImpl(const BertLayerSize& size = {});
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr}, output{nullptr};
  torch::nn::Dropout probs_dropout{nullptr};

 private:
  int64_t heads_;
};
TORCH_MODULE(BertSelfAttention);

// x1 = LayerNorm(x + Dropout(Attention(x)))
// y  = LayerNorm(x1 + Dropout(Linear(GELU(Linear(x1)))))
class BertLayerImpl : public torch::nn::Module {
 public:
  explicit BertLayerImpl(const BertLayerSize& size = {});
  torch::Tensor forward(const torch::Tensor& x);
  const BertLayerSize& size() const { return size_; }

  BertSelfAttention attention{nullptr};
  torch::nn::LayerNorm attention_norm{nullptr};
  torch::nn::Linear intermediate{nullptr};  // hidden -> intermediate, then GELU
  torch::nn::Linear output{nullptr};        // intermediate -> hidden
  torch::nn::LayerNorm output_norm{nullptr};
  torch::nn::Dropout dropout{nullptr};  // on both residual branches (it holds no state)

 private:
  BertLayerSize size_;
};
TORCH_MODULE(BertLayer);

// BERT-base's feed-forward sublayer (LayerNorm, 768 -> 3072 GELU -> 768; without the
// residual, which Sequential cannot express and which adds no FLOP) and a per-token
// 2-class head: the AMP tricks' model at the article's scale (its GEMMs are BERT-base's
// largest), as one op list autocast can walk. Input [tokens, 768].
inline constexpr int64_t kBertBaseHidden = 768, kBertBaseFfn = 3072;
torch::nn::Sequential BertFeedForwardHead(const torch::Device& device);

}  // namespace trickbench::workloads
