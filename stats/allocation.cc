#include "stats/allocation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/distributions.h"

namespace trickbench {
namespace stats {
namespace {

// log(max(h, target)): the part of a half-width that is still above a target, on the log
// scale, so that halving a width counts the same for a noisy setting as for a quiet one.
double Above(double half_width, double target) { return std::log(std::max(half_width, target)); }

// What one more process (n -> n + 1) gains a unit towards `target`, before dividing by
// its cost: only settings that the cap lets reach the target count.
double Gain(const AllocationUnit& u, int n, double target, const AllocationRule& rule) {
  double gain = 0;
  for (const double sd : u.setting_sds) {
    if (ProjectedHalfWidth(sd, rule.max_processes, rule.confidence) > target) continue;
    gain += Above(ProjectedHalfWidth(sd, n, rule.confidence), target) -
            Above(ProjectedHalfWidth(sd, n + 1, rule.confidence), target);
  }
  return gain;
}

// The greedy loop towards one target: each next process to the unit with the largest
// gain per second that still fits in *left; stops when none gains anything.
void Spend(const std::vector<AllocationUnit>& units, double target, const AllocationRule& rule,
           double* left, std::vector<int>* extra) {
  for (;;) {
    size_t best = units.size();
    double best_rate = 0;
    for (size_t i = 0; i < units.size(); ++i) {
      const AllocationUnit& u = units[i];
      const int n = u.processes + (*extra)[i];
      if (u.processes < 2 || !(u.seconds_per_process > 0) || n >= rule.max_processes ||
          u.seconds_per_process > *left) {
        continue;
      }
      const double rate = Gain(u, n, target, rule) / u.seconds_per_process;
      if (rate > best_rate) {
        best_rate = rate;
        best = i;
      }
    }
    if (best == units.size()) return;
    ++(*extra)[best];
    *left -= units[best].seconds_per_process;
  }
}

}  // namespace

double ProjectedHalfWidth(double process_sd, int processes, double confidence) {
  if (processes < 2) return std::numeric_limits<double>::infinity();
  const double t = StudentTQuantile(1 - (1 - confidence) / 2, processes - 1);
  return std::expm1(t * process_sd / std::sqrt(static_cast<double>(processes)));
}

std::vector<int> AllocateProcesses(const std::vector<AllocationUnit>& units,
                                   const AllocationRule& rule) {
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
  // Each sd raised to its upper bound (see the header): s * sqrt(dof / chi2(1 - c, dof)).
  std::vector<AllocationUnit> judged = units;
  for (AllocationUnit& u : judged) {
    if (u.processes < 2 || rule.spread_confidence == 0) continue;
    const double dof = u.processes - 1;
    const double factor = std::sqrt(dof / ChiSquareQuantile(1 - rule.spread_confidence, dof));
    for (double& sd : u.setting_sds) sd *= factor;
  }
  std::vector<int> extra(units.size(), 0);
  double left = rule.budget_seconds;
  Spend(judged, rule.imprecise_half_width, rule, &left, &extra);
  Spend(judged, rule.decision_half_width, rule, &left, &extra);
  return extra;
}

}  // namespace stats
}  // namespace trickbench
