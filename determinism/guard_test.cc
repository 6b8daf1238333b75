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
  if (HasFillUninitializedMemorySetting()) f.fill_uninitialized_memory = false;
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
    // LibTorch >= 2.1 NaN-fills uninitialised memory in deterministic mode; before,
    // there is no such setting and the flag must say so rather than pretend.
    if (HasFillUninitializedMemorySetting()) {
      EXPECT_EQ(on.fill_uninitialized_memory, std::optional<bool>(true));
    } else {
      EXPECT_FALSE(on.fill_uninitialized_memory.has_value());
    }
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
    { DeterministicGuard inner(DeterministicGuard::OnNondeterministicOp::kWarn); }
    EXPECT_FALSE(CurrentDeterminismFlags().deterministic_warn_only);
    EXPECT_TRUE(CurrentDeterminismFlags().deterministic_algorithms);
  }
  EXPECT_EQ(CurrentDeterminismFlags(), Contrary());
}

TEST(DeterministicGuard, FillCanBeLeftOff) {
  DeterministicGuard guard(DeterministicGuard::OnNondeterministicOp::kError,
                           DeterministicGuard::Fill::kLeave);
  if (HasFillUninitializedMemorySetting()) {
    EXPECT_EQ(CurrentDeterminismFlags().fill_uninitialized_memory, std::optional<bool>(false));
  } else {
    EXPECT_EQ(Describe(CurrentDeterminismFlags()).find("fill_uninitialized_memory=(not in"),
              Describe(CurrentDeterminismFlags()).find("fill_uninitialized_memory="));
  }
}

TEST(DeterministicGuard, SavedIsWhatItFound) {
  ApplyDeterminismFlags(Contrary());
  DeterministicGuard guard;
  EXPECT_EQ(guard.saved(), Contrary());
}

TEST(CublasWorkspaceConfig, SetAtStartupOnlyWhenTheUserDidNot) {
  unsetenv("CUBLAS_WORKSPACE_CONFIG");
  EXPECT_TRUE(SetCublasWorkspaceConfigIfUnset());
  EXPECT_STREQ(std::getenv("CUBLAS_WORKSPACE_CONFIG"), kDeterministicCublasWorkspaceConfig);
  setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8", 1);
  EXPECT_FALSE(SetCublasWorkspaceConfigIfUnset());
  EXPECT_STREQ(std::getenv("CUBLAS_WORKSPACE_CONFIG"), ":16:8");
  unsetenv("CUBLAS_WORKSPACE_CONFIG");
}

TEST(DeterministicGuard, DeterministicModeReallyRejectsNondeterministicOps) {
  // The flag is not just stored: an op without a deterministic implementation
  // (torch's own alert, which such ops call) must see it.
  DeterministicGuard guard;
  EXPECT_TRUE(at::globalContext().deterministicAlgorithms());
  EXPECT_THROW(at::globalContext().alertNotDeterministic("trickbench test op"), c10::Error);
  DeterministicGuard warn(DeterministicGuard::OnNondeterministicOp::kWarn);
  EXPECT_NO_THROW(at::globalContext().alertNotDeterministic("trickbench test op"));
}

}  // namespace
}  // namespace trickbench
