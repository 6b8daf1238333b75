// The test every trick gets (//benches:<id>_test, from benches/defs.bzl).
//
// Linked with exactly one trick; args: --expected_id=<file stem> and
// --trick_binary=<path of //benches:<id>>. It checks that the trick registered under
// its file's name, that its variants agree and are in effect, that its reproduced
// variant gives bitwise-equal fingerprints in one process and in two fresh processes
// (and a different one for another seed, so the check can fail), and smoke-runs the
// binary with a tiny time budget and asserts on the JSON it writes, which must also
// read back through results/ (what reports/ loads it with).
#include <torch/cuda.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <string>

#include "common/atomic_file.h"
#include "common/test_files.h"
#include "determinism/fingerprint.h"
#include "harness/checks.h"
#include "harness/testing/subprocess.h"
#include "results/gbench_export.h"
#include "results/result_file.h"

namespace trickbench {
namespace {

std::string g_expected_id;
std::string g_trick_binary;

const TrickDef& Def() {
  const auto& all = RegisteredTricks();
  if (all.size() != 1) {
    ADD_FAILURE() << "expected one registered trick, found " << all.size();
    std::abort();
  }
  return *all.front();
}

bool NeedsMissingCuda() { return Def().needs_cuda() && !torch::cuda::is_available(); }

// The device the trick binary picks by default: CUDA where there is one, so the checks
// below test what a run on this host measures.
torch::Device TestDevice() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

using subprocess::Proc;

// Runs the trick binary with `flags`, stdout captured, stderr to the test log.
Proc RunBinary(const std::string& flags) {
  return subprocess::RunCommand(g_trick_binary + " " + flags, subprocess::Stderr::kToTestLog);
}

TEST(Trick, RegisteredUnderItsFileName) {
  const TrickDef& def = Def();
  EXPECT_EQ(def.id(), g_expected_id);
  EXPECT_EQ(ValidateDef(def), "");
  EXPECT_EQ(FindTrick(g_expected_id), &def);
}

TEST(Trick, VariantsAgreeAndAreInEffect) {
  if (NeedsMissingCuda()) GTEST_SKIP() << "needs CUDA: " << Def().needs_cuda_reason();
  const CheckReport report = RunChecks(Def(), TestDevice(), /*seed=*/0);
  EXPECT_TRUE(report.ok) << report.reason;
  ASSERT_EQ(report.cases.size(), Def().cases(TestDevice()).size());
  for (const auto& cc : report.cases) {
    ASSERT_EQ(cc.variants.size(), Def().variants().size());
    for (const auto& vc : cc.variants) {
      EXPECT_TRUE(vc.equivalent) << cc.case_name << "/" << vc.name << ": " << vc.equivalence_detail;
      EXPECT_EQ(vc.inactive_reason, "") << cc.case_name << "/" << vc.name;
      EXPECT_TRUE(vc.active) << cc.case_name << "/" << vc.name;
    }
  }
}

// The mutation test: every optimized variant run with the baseline's body (the trick not
// applied) must fail a check, Inactive() or equivalence, or a check that passes either
// way would let an unapplied trick be timed and reported.
TEST(Trick, NotAppliedIsCaught) {
  if (NeedsMissingCuda()) GTEST_SKIP() << "needs CUDA: " << Def().needs_cuda_reason();
  const CheckReport report = RunChecks(Def(), TestDevice(), 0, nullptr, Mutation::kBaselineBody);
  if (Def().mutation_undetected().empty()) {
    EXPECT_FALSE(report.ok) << "every variant passed its checks with the baseline's body";
  }
  std::map<std::string, bool> escaped_somewhere;  // MutationUndetected variant -> seen uncaught
  for (const auto& cc : report.cases) {
    for (size_t i = 1; i < cc.variants.size(); ++i) {
      const results::VariantCheck& vc = cc.variants[i];
      const bool caught = !vc.active || !vc.equivalent;
      const std::string where = (cc.case_name.empty() ? "" : cc.case_name + "/") + vc.name;
      if (Def().MutationUndetectedWhy(vc.name).empty()) {
        EXPECT_TRUE(caught) << where << " run with the baseline's body passed every check: "
                            << "Inactive() cannot tell that the trick was not applied";
      } else {
        escaped_somewhere[vc.name] |= !caught;
      }
    }
  }
  // The list of undetected variants stays true: each still escapes in some case.
  for (const auto& [variant, escaped] : escaped_somewhere) {
    EXPECT_TRUE(escaped) << variant << " is caught in every case now: remove its "
                         << "MutationUndetected (" << Def().MutationUndetectedWhy(variant) << ")";
  }
}

// For a training trick: every optimized variant with one update dropped must differ
// from the baseline, or the tolerance is too loose to see a lost update.
TEST(Trick, DroppedUpdateIsCaught) {
  if (!Def().trains()) GTEST_SKIP() << "not a training trick (no Trains())";
  const std::string undetected = Def().MutationUndetectedWhy(kDroppedUpdate);
  if (NeedsMissingCuda()) GTEST_SKIP() << "needs CUDA: " << Def().needs_cuda_reason();
  const CheckReport report = RunChecks(Def(), TestDevice(), 0, nullptr, Mutation::kSkipStep);
  for (const auto& cc : report.cases) {
    if (!Def().Trains(cc.case_name)) continue;
    for (size_t i = 1; i < cc.variants.size(); ++i) {
      const results::VariantCheck& vc = cc.variants[i];
      if (!undetected.empty()) {
        EXPECT_TRUE(vc.equivalent) << "the dropped update is caught now: remove "
                                   << "MutationUndetected(kDroppedUpdate, ...)";
        continue;
      }
      EXPECT_FALSE(vc.equivalent) << (cc.case_name.empty() ? "" : cc.case_name + "/") << vc.name
                                  << " with one of " << Def().check_steps()
                                  << " updates dropped still matches the "
                                  << "baseline within rtol " << Def().tolerance().rtol << ", atol "
                                  << Def().tolerance().atol << " (max abs diff " << vc.max_abs_diff
                                  << ")";
    }
  }
}

TEST(Trick, ReproducibleInProcessAndSensitiveToTheSeed) {
  if (NeedsMissingCuda()) GTEST_SKIP() << "needs CUDA: " << Def().needs_cuda_reason();
  for (const std::string& c : Def().cases(TestDevice())) {
    const Fingerprint a = ReproduceFingerprint(Def(), c, TestDevice(), 1);
    const Fingerprint b = ReproduceFingerprint(Def(), c, TestDevice(), 1);
    EXPECT_EQ(a, b) << "case '" << c << "' diverged at " << FirstDifference(a, b).value_or("?");
    const Fingerprint other = ReproduceFingerprint(Def(), c, TestDevice(), 2);
    EXPECT_NE(a, other) << "case '" << c
                        << "': seed 2 gives the same fingerprint as seed 1; the result does "
                           "not depend on the seeded RNG, so this check could not fail";
  }
}

TEST(Trick, ReproducibleAcrossProcesses) {
  if (NeedsMissingCuda()) GTEST_SKIP() << "needs CUDA: " << Def().needs_cuda_reason();
  const Proc a = RunBinary("--fingerprint --seed=3 --threads=1");
  const Proc b = RunBinary("--fingerprint --seed=3 --threads=1");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const auto ja = nlohmann::json::parse(a.output);
  const auto jb = nlohmann::json::parse(b.output);
  ASSERT_EQ(ja["cases"].size(), Def().cases(TestDevice()).size());
  EXPECT_EQ(ja["cases"], jb["cases"]);
  EXPECT_EQ(ja["variant"], Def().reproduced_variant());
}

TEST(Trick, SmokeRunWritesCompleteJson) {
  const std::string out = test_files::TmpDir() + "/" + g_expected_id + ".json";
  const std::string exported = results::GoogleBenchmarkExportPath(out);
  std::remove(out.c_str());
  std::remove(exported.c_str());
  constexpr int kRounds = 3;
  const Proc p = RunBinary("--out=" + out + " --min_time=0.001 --rounds=3 --threads=1");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  std::string error;
  const auto j = nlohmann::json::parse(ReadFile(out, &error));
  ASSERT_EQ(error, "");
  const auto& tb = j.at("trickbench");
  EXPECT_EQ(tb.at("schema_version"), results::kResultSchemaVersion);
  EXPECT_FALSE(j.contains("benchmarks")) << "the samples are the rounds, written once";
  // Google Benchmark's JSON, beside the record.
  const auto gb = nlohmann::json::parse(ReadFile(exported, &error));
  ASSERT_EQ(error, "") << exported;
  // The reader reports/ uses accepts what the binary wrote.
  results::ResultFile back;
  try {
    back = results::ReadResultFile(out);
  } catch (const results::InputError& e) {
    ADD_FAILURE() << "the result file does not read back: " << e.what();
  }
  EXPECT_EQ(tb.at("id"), g_expected_id);
  EXPECT_FALSE(tb.at("claim").get<std::string>().empty());
  for (const char* key : {"torch_version", "intra_op_threads", "blas", "device", "git_revision",
                          "determinism", "cuda_available"}) {
    EXPECT_TRUE(j.at("context").contains(key)) << "context lacks " << key;
  }
  if (NeedsMissingCuda()) {
    EXPECT_EQ(tb.at("status"), "skipped");
    EXPECT_NE(tb.at("reason").get<std::string>().find("CUDA"), std::string::npos);
    EXPECT_TRUE(gb.at("benchmarks").empty());
    EXPECT_FALSE(tb.at("reproducibility").at("checked").get<bool>());
    return;
  }
  EXPECT_EQ(tb.at("status"), "ok") << tb.at("reason");
  EXPECT_TRUE(tb.at("reproducibility").at("checked").get<bool>());
  EXPECT_TRUE(tb.at("reproducibility").at("bitwise_reproducible").get<bool>())
      << tb.at("reproducibility").dump();
  EXPECT_EQ(j.at("context").at("intra_op_threads"), "1");
  // Every case ran its rounds, every variant once in each.
  ASSERT_EQ(back.trickbench.rounds.size(), Def().cases(TestDevice()).size());
  for (const results::CaseRounds& c : back.trickbench.rounds) {
    for (int v = 0; v < static_cast<int>(Def().variants().size()); ++v) {
      EXPECT_EQ(c.Of(v).size(), static_cast<size_t>(kRounds)) << c.case_name << " variant " << v;
    }
    for (int v = 1; v < static_cast<int>(Def().variants().size()); ++v) {
      EXPECT_EQ(c.LogRatios(v).size(), static_cast<size_t>(kRounds)) << c.case_name;
    }
  }
  // In the export, every case x variant has one entry per round and its memory counter.
  std::map<std::string, int> repetitions;
  std::set<std::string> medians;
  for (const auto& b : gb.at("benchmarks")) {
    EXPECT_FALSE(b.value("error_occurred", false)) << b.dump();
    if (b.at("run_type") == "iteration") {
      ++repetitions[b.at("run_name")];
      EXPECT_TRUE(b.contains("peak_bytes")) << b.at("name");
      EXPECT_GT(b.at("real_time").get<double>(), 0) << b.at("name");
    } else if (b.at("aggregate_name") == "median") {
      medians.insert(b.at("run_name"));
    }
  }
  const auto& checks = tb.at("checks");
  ASSERT_EQ(checks.size(), Def().cases(TestDevice()).size());
  for (const auto& cc : checks) {
    ASSERT_EQ(cc.at("variants").size(), Def().variants().size());
    for (const auto& v : cc.at("variants")) {
      const std::string name =
          results::GoogleBenchmarkName(g_expected_id, cc.at("case"), v.at("name"));
      EXPECT_EQ(repetitions[name], kRounds) << name;
      EXPECT_EQ(medians.count(name), 1u) << name;
      EXPECT_TRUE(v.at("equivalent").get<bool>()) << name;
      EXPECT_TRUE(v.at("active").get<bool>()) << name;
    }
  }
}

}  // namespace
}  // namespace trickbench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    trickbench::test_files::ArgValue(argv[i], "--expected_id", &trickbench::g_expected_id);
    trickbench::test_files::ArgValue(argv[i], "--trick_binary", &trickbench::g_trick_binary);
  }
  if (trickbench::g_expected_id.empty() || trickbench::g_trick_binary.empty()) {
    std::fprintf(stderr, "usage: %s --expected_id=ID --trick_binary=PATH\n", argv[0]);
    return 2;
  }
  return RUN_ALL_TESTS();
}
