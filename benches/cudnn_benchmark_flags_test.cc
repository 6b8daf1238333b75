// The cudnn_benchmark trick and deterministic mode, checked on CPU (the flags are
// process-wide settings, present without CUDA; the convolutions just run on CPU):
// the autotuned variant turns benchmark mode on, except under DeterministicGuard,
// where it stays off (choosing algorithms by timing would make runs differ) and its
// active check says why; the guard restores the flag afterwards. Also on CPU: the two
// variants' differently padded convolutions (rows / columns) compute the same net.
#include <gtest/gtest.h>

#include "determinism/guard.h"
#include "harness/trick.h"

namespace trickbench {
namespace {

const TrickDef& Def() {
  const TrickDef* def = FindTrick("cudnn_benchmark");
  if (def == nullptr) std::abort();
  return *def;
}

void RunVariant(Trick& trick, const std::string& name) {
  Def().variants().at(Def().VariantIndex(name)).body(trick);
}

TEST(CudnnBenchmarkFlags, RegisteredAsNeedingCudaAndReproducingTheAutotunedVariant) {
  EXPECT_TRUE(Def().needs_cuda());
  EXPECT_EQ(Def().reproduced_variant(), "autotuned");
  EXPECT_EQ(Def().variants().front().name, "default_algorithms");
}

TEST(CudnnBenchmarkFlags, AutotunedVariantTurnsBenchmarkModeOn) {
  at::globalContext().setBenchmarkCuDNN(false);
  auto trick = Def().Make();
  trick->SetUp(Def().NewInstance("forward", torch::kCPU, "autotuned"));
  RunVariant(*trick, "autotuned");
  EXPECT_TRUE(at::globalContext().benchmarkCuDNN());
  EXPECT_EQ(trick->Inactive("autotuned"), "");
  RunVariant(*trick, "default_algorithms");
  EXPECT_FALSE(at::globalContext().benchmarkCuDNN());
  EXPECT_EQ(trick->Inactive("default_algorithms"), "");
}

TEST(CudnnBenchmarkFlags, DeterministicModeKeepsBenchmarkModeOff) {
  at::globalContext().setBenchmarkCuDNN(true);
  for (const std::string c : {"forward", "backward"}) {
    DeterministicGuard guard;
    EXPECT_FALSE(at::globalContext().benchmarkCuDNN()) << "the guard turns it off";
    auto trick = Def().Make();
    trick->SetUp(Def().NewInstance(c, torch::kCPU, "autotuned"));
    RunVariant(*trick, "autotuned");
    EXPECT_FALSE(at::globalContext().benchmarkCuDNN()) << c;
    EXPECT_NE(trick->Inactive("autotuned").find("deterministic"), std::string::npos)
        << trick->Inactive("autotuned");
  }
  EXPECT_TRUE(at::globalContext().benchmarkCuDNN()) << "the guard restores the flag";
}

// Both variants from the same seed: the same weights, so the same outputs or grads up to
// float rounding, though one pads rows and the other columns.
TEST(CudnnBenchmarkFlags, VariantsPaddingRowsOrColumnsComputeTheSameNet) {
  for (const std::string c : {"forward", "backward"}) {
    Tensors results[2];
    int i = 0;
    for (const std::string variant : {"default_algorithms", "autotuned"}) {
      torch::manual_seed(7);
      auto trick = Def().Make();
      trick->SetUp(Def().NewInstance(c, torch::kCPU, variant));
      RunVariant(*trick, variant);
      RunVariant(*trick, variant);
      results[i++] = trick->Result();
    }
    ASSERT_EQ(results[0].size(), results[1].size()) << c;
    for (size_t k = 0; k < results[0].size(); ++k) {
      EXPECT_GT(results[0][k].abs().sum().item<double>(), 0) << c << " result " << k;
      EXPECT_TRUE(torch::allclose(results[0][k], results[1][k], 1e-4, 1e-5))
          << c << " result " << k;
    }
  }
}

}  // namespace
}  // namespace trickbench
