#include <torch/autograd.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include "training/checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <stdexcept>

#include "harness/memory.h"
#include "training/autocast.h"

namespace trickbench::training {
namespace {

// A residual MLP of `depth` blocks (Linear-ReLU-Dropout-Linear + skip): activations
// dominate its memory at batch 256, width 64.
struct DeepMlp {
  explicit DeepMlp(int64_t depth, double dropout = 0.0, int64_t width = 64) {
    for (int64_t i = 0; i < depth; ++i) {
      blocks.push_back({torch::nn::Linear(width, width), torch::nn::Linear(width, width),
                        torch::nn::Dropout(dropout)});
    }
  }
  struct Block {
    torch::nn::Linear a, b;
    torch::nn::Dropout dropout;
  };
  std::vector<Block> blocks;

  std::vector<Layer> Layers() {
    std::vector<Layer> layers;
    for (auto& blk : blocks) {
      Layer l;
      l.forward = [blk](const torch::Tensor& x) mutable {
        return x + blk.b->forward(blk.dropout->forward(torch::relu(blk.a->forward(x))));
      };
      l.params = blk.a->parameters();
      for (const auto& p : blk.b->parameters()) l.params.push_back(p);
      layers.push_back(l);
    }
    return layers;
  }
  std::vector<torch::Tensor> Params() {
    std::vector<torch::Tensor> ps;
    for (auto& blk : blocks) {
      for (const auto& p : blk.a->parameters()) ps.push_back(p);
      for (const auto& p : blk.b->parameters()) ps.push_back(p);
    }
    return ps;
  }
  torch::Tensor Plain(torch::Tensor x) {
    for (const auto& l : Layers()) x = l.forward(x);
    return x;
  }
};

// Grads of every parameter and of the input after one backward of sum(y^2).
std::vector<torch::Tensor> Grads(DeepMlp& net, const torch::Tensor& input, int64_t segments,
                                 uint64_t seed, CheckpointOptions options = {}) {
  for (auto& p : net.Params()) p.mutable_grad() = torch::Tensor();
  const torch::Tensor x = input.detach().requires_grad_(true);
  torch::manual_seed(seed);
  const torch::Tensor y =
      segments == 0 ? net.Plain(x) : CheckpointSequential(net.Layers(), segments, x, options);
  y.pow(2).sum().backward();
  std::vector<torch::Tensor> g{x.grad().clone()};
  for (const auto& p : net.Params()) g.push_back(p.grad().clone());
  return g;
}

bool BitwiseEqual(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].defined() || !b[i].defined() || !torch::equal(a[i], b[i])) return false;
  }
  return true;
}

TEST(Checkpoint, GradientsEqualThePlainRunWithDropout) {
  torch::manual_seed(0);
  DeepMlp net(8, /*dropout=*/0.3);
  const torch::Tensor x = torch::randn({32, 64});
  const auto plain = Grads(net, x, /*segments=*/0, /*seed=*/7);
  for (int64_t segments : {1, 2, 3, 8}) {
    EXPECT_TRUE(BitwiseEqual(Grads(net, x, segments, 7), plain)) << segments << " segments";
  }
  // Without the RNG restore the recompute draws other dropout masks: the check above
  // could fail, and does when the trick is broken.
  EXPECT_FALSE(BitwiseEqual(Grads(net, x, 4, 7, {.preserve_rng_state = false}), plain));
}

TEST(Checkpoint, RestoresTheCallersRngAfterTheRecompute) {
  torch::manual_seed(0);
  DeepMlp net(4, 0.5);
  const torch::Tensor x = torch::randn({8, 64}, torch::requires_grad());
  const torch::Tensor y = CheckpointSequential(net.Layers(), 2, x);
  const torch::Tensor state = at::globalContext().defaultGenerator(torch::kCPU).get_state();
  y.sum().backward();  // recomputes, drawing dropout masks from the forward's state
  EXPECT_TRUE(torch::equal(at::globalContext().defaultGenerator(torch::kCPU).get_state(), state));
}

TEST(Checkpoint, RecomputesUnderTheForwardsAutocastAndGradMode) {
  torch::nn::Linear linear(16, 16);
  std::vector<std::pair<bool, bool>> seen;  // (autocast on, grad mode on) per call
  auto segment = [&](const torch::Tensor& x) {
    seen.emplace_back(AutocastEnabled(torch::kCPU), torch::GradMode::is_enabled());
    return linear->forward(x);
  };
  const torch::Tensor x = torch::randn({4, 16}, torch::requires_grad());
  torch::Tensor y;
  {
    AutocastGuard autocast(torch::kCPU);
    y = Checkpoint(segment, x, linear->parameters());
  }
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  EXPECT_FALSE(y.grad_fn() == nullptr);
  y.to(torch::kFloat).sum().backward();  // outside the autocast region
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_pair(true, false)) << "forward: autocast on, no graph";
  EXPECT_EQ(seen[1], std::make_pair(true, true)) << "recompute: forward's autocast, grad mode";
  EXPECT_FALSE(AutocastEnabled(torch::kCPU));
  EXPECT_EQ(linear->weight.grad().scalar_type(), torch::kFloat);
}

TEST(Checkpoint, GradientsFlowThroughTheGraphToAutogradGrad) {
  torch::manual_seed(0);
  DeepMlp net(4);
  const torch::Tensor x = torch::randn({8, 64}, torch::requires_grad());
  const auto params = net.Params();
  std::vector<torch::Tensor> wrt{x};
  wrt.insert(wrt.end(), params.begin(), params.end());
  const auto plain = torch::autograd::grad({net.Plain(x).sum()}, wrt);
  const auto ckpt = torch::autograd::grad({CheckpointSequential(net.Layers(), 2, x).sum()}, wrt);
  EXPECT_TRUE(BitwiseEqual(plain, ckpt));
  EXPECT_FALSE(params[0].grad().defined()) << "grad() must not accumulate into .grad";
}

int64_t PeakBytes(DeepMlp& net, const torch::Tensor& input, int64_t segments) {
  CpuMemoryMeter meter;
  const torch::Tensor x = input.detach().requires_grad_(true);
  const torch::Tensor y =
      segments == 0 ? net.Plain(x) : CheckpointSequential(net.Layers(), segments, x);
  y.pow(2).sum().backward();
  return meter.peak_bytes();
}

TEST(Checkpoint, PeakMemoryIsLowerAtDepth32) {
  torch::manual_seed(0);
  DeepMlp net(32);
  const torch::Tensor x = torch::randn({256, 64});
  PeakBytes(net, x, 0);  // grads allocated once, so both runs below start alike
  const int64_t plain = PeakBytes(net, x, 0);
  const int64_t sqrt_segments = PeakBytes(net, x, 6);  // ~sqrt(32)
  // Plain keeps ~4 activations of 64 KiB per block (128 blocks' worth); six
  // segments keep 6 boundaries + one segment's activations: well under half.
  std::cout << "depth 32 peak: plain " << plain << " B, 6 checkpointed segments " << sqrt_segments
            << " B\n";
  EXPECT_LT(sqrt_segments, plain / 2)
      << "plain " << plain << " B, checkpointed " << sqrt_segments << " B";
}

TEST(Checkpoint, RejectsBadInput) {
  DeepMlp net(3);
  const torch::Tensor x = torch::randn({2, 64});
  EXPECT_THROW(CheckpointSequential(net.Layers(), 0, x), std::invalid_argument);
  EXPECT_THROW(CheckpointSequential(net.Layers(), 4, x), std::invalid_argument);
  EXPECT_THROW(Checkpoint(Segment(), x, {}), std::invalid_argument);
  EXPECT_THROW(Checkpoint(net.Layers()[0].forward, torch::Tensor(), {}), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench::training
