// The cost of determinism: paired samples in both modes, the estimate's direction and
// interval, a step that cannot run deterministically reported as an error, and the CLI
// over fresh processes on the reference training (exit 0, the ratio printed; bad flags 2).
#include <ATen/Context.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "determinism/cost.h"
#include "harness/testing/subprocess.h"

namespace trickbench {
namespace {

std::string g_cost_binary;

TEST(DeterminismCost, PairsBothModesInEveryRound) {
  int deterministic_runs = 0, default_runs = 0;
  const CostSamples s = TimeDeterminismCost(
      [&] {
        (at::globalContext().deterministicAlgorithms() ? deterministic_runs : default_runs)++;
      },
      {.rounds = 7, .min_sample_seconds = 1e-4, .seed = 3});
  EXPECT_TRUE(s.error.empty()) << s.error;
  ASSERT_EQ(s.log_ratios.size(), 7u);
  EXPECT_GE(s.steps_per_sample, 1);
  // Both modes ran the same calibrated count in every round (plus warm-up/calibration).
  EXPECT_GE(deterministic_runs, 7 * s.steps_per_sample);
  EXPECT_GE(default_runs, 7 * s.steps_per_sample);
  EXPECT_FALSE(at::globalContext().deterministicAlgorithms()) << "the guard was not restored";
}

TEST(DeterminismCost, AStepWithoutADeterministicKernelIsAnError) {
  const CostSamples s = TimeDeterminismCost(
      [] {
        if (at::globalContext().deterministicAlgorithms())
          throw std::runtime_error("index_put_ does not have a deterministic implementation");
      },
      {.rounds = 3, .min_sample_seconds = 1e-4});
  EXPECT_TRUE(s.log_ratios.empty());
  EXPECT_NE(s.error.find("does not have a deterministic implementation"), std::string::npos);
}

TEST(DeterminismCost, RatioIsDeterministicOverDefaultWithAnIntervalAroundIt) {
  // Deterministic mode 10 % slower: log(default / deterministic) = -log(1.1), with noise.
  std::vector<std::vector<double>> lr;
  for (int p = 0; p < 6; ++p) {
    lr.emplace_back();
    // Process offsets symmetric around 0 (so the mean over processes is exact), round
    // noise around each process's median.
    for (int r = 0; r < 10; ++r) {
      lr.back().push_back(-std::log(1.1) + 0.01 * (p - 2.5) + 0.01 * (r % 3 - 1));
    }
  }
  const DeterminismCost c = EstimateDeterminismCost(lr);
  EXPECT_NEAR(c.ratio, 1.1, 0.01);
  EXPECT_LT(c.low, c.ratio);
  EXPECT_GT(c.high, c.ratio);
  EXPECT_LT(c.low, 1.1);
  EXPECT_GT(c.high, 1.1);
  EXPECT_EQ(c.estimate.processes, 6);
  EXPECT_NE(c.Describe().find("x the default mode's time ["), std::string::npos) << c.Describe();
  const DeterminismCost one = EstimateDeterminismCost({lr[0]});
  EXPECT_NE(one.Describe().find("one process: narrower than across processes"), std::string::npos);
  EXPECT_THROW(EstimateDeterminismCost({}), std::invalid_argument);
}

TEST(CostCli, MeasuresTheReferenceTrainingOverProcesses) {
  auto p = subprocess::RunCommand(g_cost_binary + " --processes=2 --rounds=2 --min_time=0.01");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("deterministic mode: "), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("2 processes, 4 paired rounds"), std::string::npos) << p.output;
  p = subprocess::RunCommand(g_cost_binary + " --rounds=0");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("--rounds"), std::string::npos) << p.output;
}

}  // namespace
}  // namespace trickbench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--cost=", 0) == 0) trickbench::g_cost_binary = a.substr(7);
  }
  if (trickbench::g_cost_binary.empty()) {
    std::fprintf(stderr, "usage: %s --cost=PATH\n", argv[0]);
    return 2;
  }
  return RUN_ALL_TESTS();
}
