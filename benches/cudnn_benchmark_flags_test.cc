// The cudnn_benchmark trick and deterministic mode, checked on CPU (the flags are
// process-wide settings, present without CUDA; the convolutions just run on CPU):
// the autotuned variant turns benchmark mode on, except under DeterministicGuard,
// where it stays off (choosing algorithms by timing would make runs differ) and its
// active check says why; the guard restores the flag afterwards.
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
  trick->SetUp(Instance{"forward", torch::kCPU});
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
    trick->SetUp(Instance{c, torch::kCPU});
    RunVariant(*trick, "autotuned");
    EXPECT_FALSE(at::globalContext().benchmarkCuDNN()) << c;
    EXPECT_NE(trick->Inactive("autotuned").find("deterministic"), std::string::npos)
        << trick->Inactive("autotuned");
  }
  EXPECT_TRUE(at::globalContext().benchmarkCuDNN()) << "the guard restores the flag";
}

}  // namespace
}  // namespace trickbench
