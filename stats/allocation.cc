#include "stats/allocation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "stats/distributions.h"

namespace trickbench {
namespace stats {
namespace {

// log(max(h, target)): the part of a half-width that is still above a target, on the log
// scale, so that halving a width counts the same for a noisy setting as for a quiet one.
double Above(double half_width, double target) { return std::log(std::max(half_width, target)); }

// The units with each sd raised to its one-sided upper `confidence` bound (see the
// header): s * sqrt(dof / chi2(1 - confidence, dof)); 0: as measured.
std::vector<AllocationUnit> AtUpperBound(std::vector<AllocationUnit> units, double confidence) {
  for (AllocationUnit& u : units) {
    if (u.processes < 2 || confidence == 0) continue;
    const double dof = u.processes - 1;
    const double factor = std::sqrt(dof / ChiSquareQuantile(1 - confidence, dof));
    for (double& sd : u.setting_sds) sd *= factor;
  }
  return units;
}

// What one more process (n -> n + 1) gains a unit towards `target`, before dividing by
// its cost, from its spreads as judged (`judged`: the upper bounds): only settings that
// the cap lets reach the target on their spread bounded for reach (`reach`) count.
double Gain(const AllocationUnit& reach, const AllocationUnit& judged, int n, double target,
            const AllocationRule& rule) {
  double gain = 0;
  for (size_t s = 0; s < judged.setting_sds.size(); ++s) {
    if (ProjectedHalfWidth(reach.setting_sds[s], rule.max_processes, rule.confidence) > target) {
      continue;
    }
    const double sd = judged.setting_sds[s];
    gain += Above(ProjectedHalfWidth(sd, n, rule.confidence), target) -
            Above(ProjectedHalfWidth(sd, n + 1, rule.confidence), target);
  }
  return gain;
}

// The greedy loop towards one target: each next process to the unit with the largest
// gain per second that still fits in *left; stops when none gains anything. `reach` and
// `judged` are the same units with their spreads bounded two ways (AtUpperBound).
void Spend(const std::vector<AllocationUnit>& reach, const std::vector<AllocationUnit>& judged,
           double target, const AllocationRule& rule, double* left, std::vector<int>* extra) {
  for (;;) {
    size_t best = judged.size();
    double best_rate = 0;
    for (size_t i = 0; i < judged.size(); ++i) {
      const AllocationUnit& u = judged[i];
      const int n = u.processes + (*extra)[i];
      if (u.processes < 2 || !(u.seconds_per_process > 0) || n >= rule.max_processes ||
          u.seconds_per_process > *left) {
        continue;
      }
      const double rate = Gain(reach[i], u, n, target, rule) / u.seconds_per_process;
      if (rate > best_rate) {
        best_rate = rate;
        best = i;
      }
    }
    if (best == judged.size()) return;
    ++(*extra)[best];
    *left -= judged[best].seconds_per_process;
  }
}

}  // namespace

double ProjectedHalfWidth(double process_sd, int processes, double confidence) {
  if (processes < 2) return std::numeric_limits<double>::infinity();
  const double t = StudentTQuantile(1 - (1 - confidence) / 2, processes - 1);
  return std::expm1(t * process_sd / std::sqrt(static_cast<double>(processes)));
}

std::vector<int> AllocateProcesses(const std::vector<AllocationUnit>& units,
                                   const AllocationRule& rule, int* towards_decision) {
  if (!(rule.budget_seconds >= 0)) throw std::invalid_argument("allocation: negative budget");
  if (rule.max_processes < 2) throw std::invalid_argument("allocation: max_processes < 2");
  for (const auto& u : units) {
    for (const double sd : u.setting_sds) {
      if (!std::isfinite(sd) || sd < 0) {
        throw std::invalid_argument("allocation: a setting's spread is not a finite sd >= 0");
      }
    }
  }
  if (!(rule.spread_confidence >= 0 && rule.spread_confidence < 1)) {
    throw std::invalid_argument("allocation: spread_confidence not in [0, 1)");
  }
  if (!(rule.reach_confidence >= 0 && rule.reach_confidence < 1)) {
    throw std::invalid_argument("allocation: reach_confidence not in [0, 1)");
  }
  const std::vector<AllocationUnit> judged = AtUpperBound(units, rule.spread_confidence);
  const std::vector<AllocationUnit> reach = AtUpperBound(units, rule.reach_confidence);
  std::vector<int> extra(units.size(), 0);
  double left = rule.budget_seconds;
  Spend(reach, judged, rule.imprecise_half_width, rule, &left, &extra);
  const int first = std::accumulate(extra.begin(), extra.end(), 0);
  Spend(reach, judged, rule.decision_half_width, rule, &left, &extra);
  if (towards_decision) *towards_decision = std::accumulate(extra.begin(), extra.end(), 0) - first;
  return extra;
}

}  // namespace stats
}  // namespace trickbench
