#include "determinism/guard.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace trickbench {
namespace {

// Sets every flag to the opposite of what the guard wants, so a flag the guard forgot
// to restore shows up as a difference.
DeterminismFlags Contrary() {
  DeterminismFlags f;
  f.deterministic_algorithms = false;
  f.deterministic_warn_only = false;
  f.cudnn_deterministic = false;
  f.cudnn_benchmark = true;
  f.tf32_cublas = true;
  f.tf32_cudnn = true;
  f.cublas_workspace_config = ":16:8";
  return f;
}

TEST(DeterministicGuard, SetsEveryFlagAndRestoresIt) {
  ApplyDeterminismFlags(Contrary());
  const DeterminismFlags before = CurrentDeterminismFlags();
  ASSERT_EQ(before, Contrary());
  {
    DeterministicGuard guard;
    const DeterminismFlags on = CurrentDeterminismFlags();
    EXPECT_TRUE(on.deterministic_algorithms);
    EXPECT_FALSE(on.deterministic_warn_only);
    EXPECT_TRUE(on.cudnn_deterministic);
    EXPECT_FALSE(on.cudnn_benchmark);
    EXPECT_FALSE(on.tf32_cublas);
    EXPECT_FALSE(on.tf32_cudnn);
    EXPECT_EQ(on.cublas_workspace_config.value_or(""), ":4096:8");
  }
  EXPECT_EQ(CurrentDeterminismFlags(), before) << Describe(CurrentDeterminismFlags());
}

TEST(DeterministicGuard, RestoresAnUnsetEnvironmentVariable) {
  unsetenv("CUBLAS_WORKSPACE_CONFIG");
  {
    DeterministicGuard guard(DeterministicGuard::OnNondeterministicOp::kWarn);
    EXPECT_TRUE(CurrentDeterminismFlags().deterministic_warn_only);
    EXPECT_NE(std::getenv("CUBLAS_WORKSPACE_CONFIG"), nullptr);
  }
  EXPECT_EQ(std::getenv("CUBLAS_WORKSPACE_CONFIG"), nullptr);
}

TEST(DeterministicGuard, Nests) {
  ApplyDeterminismFlags(Contrary());
  {
    DeterministicGuard outer;
    {
      DeterministicGuard inner(DeterministicGuard::OnNondeterministicOp::kWarn);
    }
    EXPECT_FALSE(CurrentDeterminismFlags().deterministic_warn_only);
    EXPECT_TRUE(CurrentDeterminismFlags().deterministic_algorithms);
  }
  EXPECT_EQ(CurrentDeterminismFlags(), Contrary());
}

}  // namespace
}  // namespace trickbench
