#include "run_all/budget.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

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

TEST(Budget, TheDefaultIsAMultipleOfTheFirstPassWithinTheTenMinuteTarget) {
  const results::RunBudget d = NewBudget(100, std::nullopt);
  EXPECT_DOUBLE_EQ(d.seconds, 350);
  EXPECT_EQ(d.rule,
            "the default: 3.5 x the first pass's time, at most 555 s (never less than the "
            "first pass)");
  // A slow first pass: the cap, so the run stays within 10 minutes...
  EXPECT_DOUBLE_EQ(NewBudget(340, std::nullopt).seconds, kDefaultBudgetCap);
  // ... and one over the cap gets no extra processes, never a budget under what it took.
  EXPECT_DOUBLE_EQ(NewBudget(600, std::nullopt).seconds, 600);
  EXPECT_DOUBLE_EQ(DefaultBudgetSeconds(10), 35);  // a run of a few tricks stays short
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

// --settle: a budget of its own (none of it spent yet), folded into the run's record:
// a budgeted run's record grows; a fixed-count run gets one whose first pass is that count.
TEST(Budget, ASettleIsItsOwnBudgetAndIsAddedToTheRunsRecord) {
  results::RunIndex fixed;
  fixed.processes = 8;
  fixed.tricks = {Entry("a", 1, 10), Entry("a", 2, 5), Entry("b", 1, 20)};
  results::RunBudget settle = SettleBudget(fixed, std::nullopt);
  EXPECT_EQ(settle.seconds, 35);  // as long as the run's processes took
  EXPECT_EQ(settle.first_pass_seconds, 0);
  EXPECT_EQ(settle.first_pass_processes, 8);
  EXPECT_EQ(settle.max_processes, kMaxProcessesPerTrick);
  EXPECT_NE(settle.rule.find("run_all --settle"), std::string::npos);
  EXPECT_EQ(SettleBudget(fixed, 12.0).seconds, 12);
  EXPECT_EQ(SettleBudget(fixed, 12.0).rule, "run_all --settle --budget");

  settle = SettleBudget(fixed, 12.0);
  settle.added = {{"a", 3}};
  settle.left_out = 1;
  settle.towards_decision = 2;
  const results::RunBudget from_fixed = WithSettle(fixed, settle);
  EXPECT_EQ(from_fixed.first_pass_processes, 8);
  EXPECT_EQ(from_fixed.first_pass_seconds, 35);
  EXPECT_EQ(from_fixed.seconds, 35 + 12);
  EXPECT_EQ(from_fixed.rule, "--processes=8; then run_all --settle --budget: 12 s");
  EXPECT_EQ(from_fixed.added, (std::map<std::string, int>{{"a", 3}}));
  EXPECT_EQ(from_fixed.left_out, 1);
  EXPECT_EQ(from_fixed.towards_decision, 2);

  results::RunIndex budgeted = fixed;
  budgeted.budget = NewBudget(100, std::nullopt);
  budgeted.budget->added = {{"a", 2}, {"b", 1}};
  const results::RunBudget grown = WithSettle(budgeted, settle);
  EXPECT_EQ(grown.first_pass_processes, kFirstPassProcesses);
  EXPECT_EQ(grown.first_pass_seconds, 100);
  EXPECT_DOUBLE_EQ(grown.seconds, DefaultBudgetSeconds(100) + 12);
  EXPECT_EQ(grown.added, (std::map<std::string, int>{{"a", 5}, {"b", 1}}));
  EXPECT_EQ(grown.rule, budgeted.budget->rule + "; then run_all --settle --budget: 12 s");
  // Which target placed them is summed where both records say it, else not said.
  EXPECT_FALSE(grown.towards_decision.has_value());
  budgeted.budget->towards_decision = 1;
  EXPECT_EQ(WithSettle(budgeted, settle).towards_decision, 3);
}

// A settle plans on the run as it stands: a trick with more processes already is closer
// to its target, and its budget starts at zero spent.
TEST(Budget, ASettlePlansOnTheRunsCurrentProcesses) {
  results::RunIndex index;
  index.processes = 3;
  index.tricks = {Entry("a", 1, 1), Entry("a", 2, 1), Entry("a", 3, 1)};
  reports::Report run;
  run.tricks = {Trick("a", {0.05})};
  const BudgetPlan plan = PlanBudget({"a"}, run, index.tricks, SettleBudget(index, 1000.0));
  ASSERT_EQ(plan.added.size(), 1u);
  EXPECT_GT(plan.added[0], 0);
  EXPECT_LE(plan.added[0], kMaxProcessesPerTrick - kFirstPassProcesses);
  // No budget, nothing added.
  EXPECT_EQ(PlanBudget({"a"}, run, index.tricks, SettleBudget(index, 0.0)).added[0], 0);
}

}  // namespace
}  // namespace run_all
}  // namespace trickbench
