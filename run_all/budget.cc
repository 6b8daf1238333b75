#include "run_all/budget.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "reports/thresholds.h"
#include "stats/allocation.h"
#include "stats/summary.h"

namespace trickbench {
namespace run_all {

double SecondsPerProcess(const std::string& id, const std::vector<results::IndexEntry>& entries) {
  std::vector<double> later;
  double first = 0;
  for (const results::IndexEntry& e : entries) {
    if (e.id != id || e.outcome != results::RunOutcome::kOk) continue;
    if (e.process == 1) {
      first = e.seconds;
    } else {
      later.push_back(e.seconds);
    }
  }
  return later.empty() ? first : stats::Median(later);
}

results::RunBudget NewBudget(double first_pass_seconds, std::optional<double> budget_seconds) {
  results::RunBudget b;
  b.first_pass_processes = kFirstPassProcesses;
  b.first_pass_seconds = first_pass_seconds;
  b.max_processes = kMaxProcessesPerTrick;
  b.imprecise_half_width = reports::kImpreciseHalfWidth;
  // What compare needs of each side to call a setting "unchanged" within +-5 %: the
  // same target its advice uses (reports/compare.cc).
  b.decision_half_width = reports::kNoEffectBand / 2;
  if (budget_seconds) {
    b.seconds = *budget_seconds;
    b.rule = "--budget";
  } else {
    b.seconds = DefaultBudgetSeconds(first_pass_seconds);
    b.rule = DefaultBudgetRule();
  }
  return b;
}

double DefaultBudgetSeconds(double first_pass_seconds) {
  return std::max(first_pass_seconds,
                  std::min(kDefaultFirstPassMultiple * first_pass_seconds, kDefaultBudgetCap));
}

std::string DefaultBudgetRule() {
  char rule[128];
  std::snprintf(rule, sizeof rule,
                "the default: %g x the first pass's time, at most %g s (never less than the "
                "first pass)",
                kDefaultFirstPassMultiple, kDefaultBudgetCap);
  return rule;
}

namespace {
double ProcessSeconds(const results::RunIndex& index) {
  double sum = 0;
  for (const results::IndexEntry& e : index.tricks) sum += e.seconds;
  return sum;
}
}  // namespace

results::RunBudget SettleBudget(const results::RunIndex& index, std::optional<double> seconds) {
  results::RunBudget b = NewBudget(0, seconds ? seconds : ProcessSeconds(index));
  b.first_pass_processes = index.processes;
  b.rule = seconds ? "run_all --settle --budget"
                   : "run_all --settle, the default: as long as the run's processes took";
  return b;
}

results::RunBudget WithSettle(const results::RunIndex& index, const results::RunBudget& settle) {
  results::RunBudget run;
  if (index.budget) {
    run = *index.budget;
    // Kept only where both records say it (a run recorded before it was kept does not).
    run.towards_decision =
        run.towards_decision && settle.towards_decision
            ? std::optional<int>(*run.towards_decision + *settle.towards_decision)
            : std::nullopt;
  } else {
    // A run of a fixed count: that count was its first pass, at what it cost.
    run = settle;
    run.first_pass_processes = index.processes;
    run.first_pass_seconds = ProcessSeconds(index);
    run.seconds = run.first_pass_seconds;
    run.rule = "--processes=" + std::to_string(index.processes);
    run.added.clear();
    run.left_out = 0;
  }
  char more[64];
  std::snprintf(more, sizeof more, "%.0f s", settle.seconds);
  run.rule += "; then " + settle.rule + ": " + more;
  run.seconds += settle.seconds;
  for (const auto& [id, n] : settle.added) run.added[id] += n;
  run.left_out += settle.left_out;
  return run;
}

BudgetPlan PlanBudget(const std::vector<std::string>& ids, const reports::Report& first_pass,
                      const std::vector<results::IndexEntry>& entries,
                      const results::RunBudget& budget) {
  std::map<std::string, const reports::TrickReport*> by_id;
  for (const reports::TrickReport& t : first_pass.tricks) by_id[t.id] = &t;
  BudgetPlan plan;
  std::vector<stats::AllocationUnit> units;
  for (const std::string& id : ids) {
    stats::AllocationUnit u;
    u.seconds_per_process = SecondsPerProcess(id, entries);
    const auto it = by_id.find(id);
    if (it != by_id.end() && it->second->outcome == results::RunOutcome::kOk) {
      u.processes = it->second->processes;
      for (const reports::VariantEffect& e : it->second->effects) {
        if (e.timed && e.time.processes >= 2) u.setting_sds.push_back(e.time.between_sd);
      }
    }
    plan.seconds_per_process.push_back(u.seconds_per_process);
    units.push_back(u);
  }
  stats::AllocationRule rule;
  rule.budget_seconds = std::max(0.0, budget.seconds - budget.first_pass_seconds);
  rule.max_processes = budget.max_processes;
  rule.imprecise_half_width = budget.imprecise_half_width;
  rule.decision_half_width = budget.decision_half_width;
  rule.confidence = 1 - reports::kAlpha;
  plan.added = stats::AllocateProcesses(units, rule, &plan.towards_decision);
  return plan;
}

}  // namespace run_all
}  // namespace trickbench
