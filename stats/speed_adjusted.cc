#include "stats/speed_adjusted.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace stats {

SpeedAdjusted AtReferenceSpeed(const std::vector<std::vector<double>>& log_ratios,
                               const std::vector<double>& log_probe, double reference,
                               double confidence, double imprecise_half_width) {
  if (log_ratios.size() != log_probe.size()) {
    throw std::invalid_argument("AtReferenceSpeed: " + std::to_string(log_ratios.size()) +
                                " processes of log ratios but " + std::to_string(log_probe.size()) +
                                " probe values");
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("AtReferenceSpeed: confidence must be in (0, 1)");
  }
  if (!std::isfinite(reference)) {
    throw std::invalid_argument("AtReferenceSpeed: the reference speed is not finite");
  }
  std::vector<double> y, x;
  int rounds = 0;
  double within_ss = 0;
  for (size_t p = 0; p < log_ratios.size(); ++p) {
    for (double v : log_ratios[p]) {
      if (!std::isfinite(v))
        throw std::invalid_argument("AtReferenceSpeed: a log ratio is not finite");
    }
    if (!std::isfinite(log_probe[p])) {
      throw std::invalid_argument("AtReferenceSpeed: a probe value is not finite");
    }
    if (log_ratios[p].empty()) continue;
    y.push_back(Median(log_ratios[p]));
    x.push_back(log_probe[p]);
    for (double v : log_ratios[p]) within_ss += (v - y.back()) * (v - y.back());
    rounds += static_cast<int>(log_ratios[p].size());
  }
  SpeedAdjusted out;
  const int n = static_cast<int>(y.size());
  if (n < kSpeedAdjustMinProcesses) {
    out.why_not =
        std::to_string(n) + " processes, fewer than " + std::to_string(kSpeedAdjustMinProcesses);
    return out;
  }
  double mx = 0, my = 0;
  for (int i = 0; i < n; ++i) mx += x[i] / n, my += y[i] / n;
  double sxx = 0, sxy = 0;
  for (int i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  // A spread of speed below a part in a million is no spread: the slope would be noise
  // over a rounding error.
  if (!(sxx > 1e-12 * n)) {
    out.why_not = "the processes' probe times do not differ";
    return out;
  }
  const double b = sxy / sxx;
  double rss = 0;
  for (int i = 0; i < n; ++i) {
    const double r = y[i] - my - b * (x[i] - mx);
    rss += r * r;
  }
  const double dof = n - 2;
  const double s2 = rss / dof;
  const double d = reference - mx;
  const double estimate = my + b * d;
  const double se = std::sqrt(s2 * (1.0 / n + d * d / sxx));
  const double t = StudentTQuantile(1 - (1 - confidence) / 2, dof);

  Speedup& s = out.speedup;
  s.processes = n;
  s.rounds = rounds;
  s.speedup = std::exp(estimate);
  s.log_se = se;
  s.dof = dof;
  s.low = std::exp(estimate - t * se);
  s.high = std::exp(estimate + t * se);
  s.half_width = std::max(s.high / s.speedup - 1, 1 - s.low / s.speedup);
  s.imprecise = s.half_width > imprecise_half_width;
  s.p_value = se > 0 ? std::min(1.0, 2 * (1 - StudentTCdf(std::fabs(estimate / se), dof)))
                     : (estimate == 0 ? 1.0 : 0.0);
  s.method = "speed_adjusted";
  s.p_method = "t";
  s.between_sd = std::sqrt(s2);
  s.within_sd = rounds > n ? std::sqrt(within_ss / (rounds - n)) : 0;
  out.adjusted = true;
  out.slope = b;
  out.mean_speed = mx;
  return out;
}

}  // namespace stats
}  // namespace trickbench
