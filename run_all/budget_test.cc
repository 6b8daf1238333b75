#include "run_all/budget.h"

#include <gtest/gtest.h>

namespace trickbench {
namespace run_all {
namespace {

results::IndexEntry Entry(const std::string& id, int process, double seconds,
                          results::RunOutcome outcome = results::RunOutcome::kOk) {
  results::IndexEntry e;
  e.id = id;
  e.process = process;
  e.seconds = seconds;
  e.outcome = outcome;
  return e;
}

reports::TrickReport Trick(const std::string& id, std::vector<double> sds) {
  reports::TrickReport t;
  t.id = id;
  t.processes = kFirstPassProcesses;
  for (const double sd : sds) {
    reports::VariantEffect e;
    e.timed = true;
    e.time.processes = kFirstPassProcesses;
    e.time.between_sd = sd;
    t.effects.push_back(e);
  }
  return t;
}

TEST(Budget, AProcessCostsWhatTheLaterProcessesTook) {
  const std::vector<results::IndexEntry> entries = {
      Entry("a", 1, 9),   Entry("a", 2, 2), Entry("a", 3, 4),
      Entry("a", 4, 100), Entry("b", 1, 5), Entry("c", 1, 7, results::RunOutcome::kCrashed)};
  EXPECT_EQ(SecondsPerProcess("a", entries), 4);  // median of 2, 4, 100; not process 1's 9
  EXPECT_EQ(SecondsPerProcess("b", entries), 5);  // only process 1: its time
  EXPECT_EQ(SecondsPerProcess("c", entries), 0);  // nothing measured
  EXPECT_EQ(SecondsPerProcess("d", entries), 0);
}

TEST(Budget, TheDefaultIsAMultipleOfTheFirstPass) {
  const results::RunBudget d = NewBudget(100, std::nullopt);
  EXPECT_DOUBLE_EQ(d.seconds, 240);
  EXPECT_EQ(d.rule, "the default: 2.4 x the first pass's time");
  EXPECT_EQ(d.first_pass_processes, kFirstPassProcesses);
  EXPECT_EQ(d.max_processes, kMaxProcessesPerTrick);
  EXPECT_DOUBLE_EQ(d.imprecise_half_width, 0.10);
  EXPECT_DOUBLE_EQ(d.decision_half_width, 0.025);
  const results::RunBudget given = NewBudget(100, 300.0);
  EXPECT_EQ(given.seconds, 300);
  EXPECT_EQ(given.rule, "--budget");
}

TEST(Budget, ExtraProcessesGoToTimedSettingsThatNeedThemWithinTheBudget) {
  reports::Report first;
  first.tricks = {Trick("noisy", {0.01, 0.04}), Trick("quiet", {0.0001}), Trick("untimed", {}),
                  Trick("failed", {0.04})};
  first.tricks[3].outcome = results::RunOutcome::kFailed;
  std::vector<results::IndexEntry> entries;
  for (const std::string id : {"noisy", "quiet", "untimed", "failed", "absent"}) {
    for (int k = 1; k <= kFirstPassProcesses; ++k) entries.push_back(Entry(id, k, 2));
  }
  const results::RunBudget b = NewBudget(60, 80.0);  // 20 s left: 10 processes at most
  const BudgetPlan plan =
      PlanBudget({"noisy", "quiet", "untimed", "failed", "absent"}, first, entries, b);
  ASSERT_EQ(plan.added.size(), 5u);
  EXPECT_GT(plan.added[0], 0);
  EXPECT_LE(plan.added[0] * 2, 20);
  EXPECT_EQ(plan.added[1], 0);  // settled: even its upper bound is under 2.5 %
  EXPECT_EQ(plan.added[2], 0);  // nothing timed
  EXPECT_EQ(plan.added[3], 0);  // not measured
  EXPECT_EQ(plan.added[4], 0);  // not in the report
  EXPECT_EQ(plan.seconds_per_process, (std::vector<double>{2, 2, 2, 2, 2}));
  // A budget the first pass overran buys nothing.
  EXPECT_EQ(PlanBudget({"noisy"}, first, entries, NewBudget(60, 30.0)).added,
            std::vector<int>({0}));
}

}  // namespace
}  // namespace run_all
}  // namespace trickbench
