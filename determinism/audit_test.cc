// The determinism audit: it judges the flags DeterministicGuard sets, says what to set
// and why for what does not hold, and, given flags, what it would say on a CUDA device
// (CUBLAS_WORKSPACE_CONFIG unset), where there is none. Part of //determinism:gate_test.
#include <gtest/gtest.h>
#include <ATen/Context.h>
#include <torch/cuda.h>

#include <iostream>
#include <string>
#include <vector>

#include "determinism/audit.h"
#include "determinism/guard.h"

namespace trickbench {
namespace {

TEST(Audit, JudgesWhatTheGuardSets) {
  const auto find = [](const std::vector<Precondition>& audit, const std::string& name) {
    for (const auto& p : audit) {
      if (p.name == name) return p;
    }
    ADD_FAILURE() << "no precondition " << name;
    return Precondition{};
  };
  at::globalContext().setDeterministicAlgorithms(false, false);
  const auto before = AuditDeterminism();
  EXPECT_EQ(find(before, "deterministic_algorithms").status, Precondition::kNotOk);
  EXPECT_FALSE(find(before, "deterministic_algorithms").fix.empty());
  EXPECT_FALSE(AuditPasses(before));
  EXPECT_EQ(find(before, "intra_op_threads").status, Precondition::kAdvice);
  EXPECT_EQ(find(before, "loader_worker_seeding").status, Precondition::kAdvice);
  {
    DeterministicGuard guard;
    const auto during = AuditDeterminism();
    EXPECT_EQ(find(during, "deterministic_algorithms").status, Precondition::kOk);
    EXPECT_TRUE(find(during, "deterministic_algorithms").fix.empty());
    EXPECT_TRUE(AuditPasses(during)) << FormatAudit(during);
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
    EXPECT_EQ(find(AuditDeterminism(), "deterministic_algorithms").state, "on (warn only)");
    EXPECT_EQ(find(AuditDeterminism(), "deterministic_algorithms").status, Precondition::kNotOk);
  }
  if (!torch::cuda::is_available()) {
    EXPECT_EQ(find(before, "cudnn_benchmark").status, Precondition::kNotApplicable);
    EXPECT_EQ(find(before, "cublas_workspace_config").status, Precondition::kNotApplicable);
  }
  // On a CUDA device, with the guard's flags but CUBLAS_WORKSPACE_CONFIG unset, only that is
  // not ok: it says what to set, and why.
  DeterminismFlags guarded;
  {
    DeterministicGuard guard;
    guarded = CurrentDeterminismFlags();
  }
  guarded.cublas_workspace_config.reset();
  const auto on_gpu = AuditDeterminism(guarded, /*cuda_available=*/true);
  const Precondition cublas = find(on_gpu, "cublas_workspace_config");
  EXPECT_EQ(cublas.state, "unset");
  EXPECT_EQ(cublas.status, Precondition::kNotOk);
  EXPECT_NE(cublas.fix.find("CUBLAS_WORKSPACE_CONFIG=:4096:8"), std::string::npos) << cublas.fix;
  EXPECT_EQ(find(on_gpu, "cudnn_deterministic").status, Precondition::kOk);
  EXPECT_EQ(find(on_gpu, "tf32").status, Precondition::kOk);
  std::cout << "the audit on a CUDA device, CUBLAS_WORKSPACE_CONFIG unset:\n"
            << FormatAudit(on_gpu);
  const std::string text = FormatAudit(before);
  EXPECT_NE(text.find("deterministic_algorithms"), std::string::npos);
  EXPECT_NE(text.find("NOT OK"), std::string::npos);
  EXPECT_NE(text.find("set: "), std::string::npos);
  EXPECT_NE(text.find("why: ops with a nondeterministic kernel"), std::string::npos) << text;
  for (const auto s : {Precondition::kOk, Precondition::kNotOk, Precondition::kNotApplicable,
                       Precondition::kAdvice}) {
    Precondition::Status back;
    ASSERT_TRUE(ParseStatus(StatusName(s), &back));
    EXPECT_EQ(back, s);
  }
  Precondition::Status unused;
  EXPECT_FALSE(ParseStatus("fine", &unused));
}

}  // namespace
}  // namespace trickbench
