// The rounds meter a later process's memory while they build their instances: the same
// figures as a memory-only check pass of fresh instances (harness/checks.h), for which
// they stand in on the CPU.
#include "harness/rounds.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trickbench {
namespace {

// Set-up state, state made on the first step (an optimizer's buffers), and a temporary
// per step whose size depends on the variant: three parts a memory check must tell apart.
class Grows : public Trick {
 public:
  void SetUp(const Instance&) override { weights_ = torch::ones({1000}); }
  void Step(int64_t temporary) {
    if (!state_.defined()) state_ = torch::zeros({2000});
    const torch::Tensor t = torch::ones({temporary});
    state_.add_(t.sum());
  }
  void Small() { Step(3000); }
  void Large() { Step(30000); }
  Tensors Result() override { return {state_}; }

 private:
  torch::Tensor weights_, state_;
};

std::unique_ptr<TrickDef> Def() {
  auto def = std::make_unique<TrickDef>("grows", [] { return std::make_unique<Grows>(); });
  def->Claim("test").Category("test").Source("test");
  def->Variant("small", &Grows::Small).Variant("large", &Grows::Large).Cases({"one", "two"});
  def->CheckSteps(3);
  return def;
}

// Two quick rounds of Def()'s cases on the CPU, as a run's process 2; false with *error.
bool QuickRounds(const TrickDef& def, bool meter_memory, TimedRun* run, std::string* error) {
  RunOptions opts;
  opts.rounds = 2;
  opts.min_time = 0.001;
  opts.process = 2;
  const torch::Device cpu(torch::kCPU);
  const auto timing = TimingBackends::For(cpu, {});
  return RunRounds({def, opts, cpu, meter_memory}, *timing, run, error);
}

TEST(RunRounds, MetersMemoryAsAMemoryOnlyCheckDoes) {
  const auto def = Def();
  TimedRun run;
  std::string error;
  ASSERT_TRUE(QuickRounds(*def, /*meter_memory=*/true, &run, &error)) << error;
  const CheckReport pass = RunChecks(*def, torch::kCPU, RunOptions{}.seed, nullptr, Mutation::kNone,
                                     CheckScope::kMemoryOnly);
  ASSERT_TRUE(pass.ok) << pass.reason;
  ASSERT_EQ(run.memory.size(), pass.cases.size());
  for (size_t c = 0; c < pass.cases.size(); ++c) {
    EXPECT_EQ(run.memory[c].case_name, pass.cases[c].case_name);
    ASSERT_EQ(run.memory[c].variants.size(), 2u);
    for (size_t v = 0; v < 2; ++v) {
      const results::VariantCheck& got = run.memory[c].variants[v];
      const results::VariantCheck& want = pass.cases[c].variants[v];
      const std::string where = pass.cases[c].case_name + "/" + want.name;
      EXPECT_EQ(got.name, want.name) << where;
      EXPECT_EQ(got.setup_bytes, want.setup_bytes) << where;
      EXPECT_EQ(got.peak_bytes, want.peak_bytes) << where;
      EXPECT_EQ(got.run_peak_bytes, want.run_peak_bytes) << where;
      EXPECT_EQ(got.allocations, want.allocations) << where;
      EXPECT_TRUE(got.equivalent && got.active) << where;
      EXPECT_EQ(got.equivalence_detail, kCheckedByProcess1) << where;
    }
    // The figures are the variants' own: 1000 floats set up; then 2000 of state plus
    // one temporary, and the variants' temporaries differ by 27000 floats.
    EXPECT_EQ(run.memory[c].variants[0].setup_bytes, 4000);
    EXPECT_EQ(run.memory[c].variants[1].run_peak_bytes - run.memory[c].variants[0].run_peak_bytes,
              27000 * 4);
    EXPECT_EQ(run.memory[c].variants[0].allocations, 1 + 3 * 2);  // state, 3 x (ones, sum)
  }
  EXPECT_EQ(run.rounds.size(), 2u);
  EXPECT_GT(run.rounds_seconds, 0);
}

TEST(RunRounds, MetersNothingUnlessAsked) {
  const auto def = Def();
  TimedRun run;
  std::string error;
  ASSERT_TRUE(QuickRounds(*def, /*meter_memory=*/false, &run, &error)) << error;
  EXPECT_TRUE(run.memory.empty());
  EXPECT_EQ(run.rounds.size(), 2u);
}

TEST(PowerOfTwoNear, RoundsInRatioAndNeverBelowOne) {
  EXPECT_EQ(PowerOfTwoNear(0), 1);
  EXPECT_EQ(PowerOfTwoNear(-3), 1);
  EXPECT_EQ(PowerOfTwoNear(std::nan("")), 1);
  EXPECT_EQ(PowerOfTwoNear(1.4), 1);  // below sqrt(2)
  EXPECT_EQ(PowerOfTwoNear(1.42), 2);
  EXPECT_EQ(PowerOfTwoNear(2.8), 2);
  EXPECT_EQ(PowerOfTwoNear(2.9), 4);
  EXPECT_EQ(PowerOfTwoNear(1000), 1024);
  EXPECT_EQ(PowerOfTwoNear(1e30), int64_t{1} << 40);
}

TEST(RunRounds, GivenIterationsAreTimedAsGiven) {
  const auto def = Def();
  RunOptions opts;
  opts.rounds = 2;
  opts.min_time = 0.001;
  const torch::Device cpu(torch::kCPU);
  const auto timing = TimingBackends::For(cpu, {});
  const std::vector<std::vector<int64_t>> given = {{3, 5}, {7, 1}};
  TimedRun run;
  std::string error;
  ASSERT_TRUE(RunRounds({*def, opts, cpu, false, &given}, *timing, &run, &error)) << error;
  ASSERT_EQ(run.rounds.size(), 2u);
  for (size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(run.rounds[c].iterations, given[c]);
    for (const auto& s : run.rounds[c].samples) EXPECT_EQ(s.iterations, given[c][s.variant]);
  }
  const std::vector<std::vector<int64_t>> short_of_a_case = {{3, 5}};
  EXPECT_FALSE(RunRounds({*def, opts, cpu, false, &short_of_a_case}, *timing, &run, &error));
  EXPECT_EQ(error, "iterations given for 1 cases, not 2");
}

}  // namespace
}  // namespace trickbench
