#include "stats/speed_adjusted.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace stats {
namespace {

// One run's processes: their values (median log ratio), speeds, and its sums.
struct Run {
  std::vector<double> y, x;
  int rounds = 0;
  double within_ss = 0;
  double mean_y = 0, mean_x = 0, sxx = 0, sxy = 0;
};

Run Processes(const std::vector<std::vector<double>>& log_ratios,
              const std::vector<double>& log_probe, const char* side) {
  const std::string where = std::string("AtOldRunsSpeed: the ") + side + " run: ";
  if (log_ratios.size() != log_probe.size()) {
    throw std::invalid_argument(where + std::to_string(log_ratios.size()) +
                                " processes of log ratios but " + std::to_string(log_probe.size()) +
                                " probe values");
  }
  Run r;
  for (size_t p = 0; p < log_ratios.size(); ++p) {
    for (double v : log_ratios[p]) {
      if (!std::isfinite(v)) throw std::invalid_argument(where + "a log ratio is not finite");
    }
    if (!std::isfinite(log_probe[p])) {
      throw std::invalid_argument(where + "a probe value is not finite");
    }
    if (log_ratios[p].empty()) continue;
    r.y.push_back(Median(log_ratios[p]));
    r.x.push_back(log_probe[p]);
    for (double v : log_ratios[p]) r.within_ss += (v - r.y.back()) * (v - r.y.back());
    r.rounds += static_cast<int>(log_ratios[p].size());
  }
  const double n = static_cast<double>(r.y.size());
  for (size_t i = 0; i < r.y.size(); ++i) r.mean_y += r.y[i] / n, r.mean_x += r.x[i] / n;
  for (size_t i = 0; i < r.y.size(); ++i) {
    r.sxx += (r.x[i] - r.mean_x) * (r.x[i] - r.mean_x);
    r.sxy += (r.x[i] - r.mean_x) * (r.y[i] - r.mean_y);
  }
  return r;
}

Speedup Side(const Run& r, double estimate, double se, double dof, double s, double confidence,
             double imprecise_half_width) {
  Speedup out;
  const double t = StudentTQuantile(1 - (1 - confidence) / 2, dof);
  const int n = static_cast<int>(r.y.size());
  out.processes = n;
  out.rounds = r.rounds;
  out.speedup = std::exp(estimate);
  out.log_se = se;
  out.dof = dof;
  out.low = std::exp(estimate - t * se);
  out.high = std::exp(estimate + t * se);
  out.half_width = std::max(out.high / out.speedup - 1, 1 - out.low / out.speedup);
  out.imprecise = out.half_width > imprecise_half_width;
  out.p_value = se > 0 ? std::min(1.0, 2 * (1 - StudentTCdf(std::fabs(estimate / se), dof)))
                       : (estimate == 0 ? 1.0 : 0.0);
  out.method = "speed_adjusted";
  out.p_method = "t";
  out.between_sd = s;
  out.within_sd = r.rounds > n ? std::sqrt(r.within_ss / (r.rounds - n)) : 0;
  return out;
}

}  // namespace

OneSpeed AtOldRunsSpeed(const std::vector<std::vector<double>>& old_log_ratios,
                        const std::vector<double>& old_log_probe,
                        const std::vector<std::vector<double>>& new_log_ratios,
                        const std::vector<double>& new_log_probe, double confidence,
                        double imprecise_half_width) {
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("AtOldRunsSpeed: confidence must be in (0, 1)");
  }
  const Run o = Processes(old_log_ratios, old_log_probe, "old");
  const Run n = Processes(new_log_ratios, new_log_probe, "new");
  OneSpeed out;
  const int no = static_cast<int>(o.y.size()), nn = static_cast<int>(n.y.size());
  if (no + nn < kSpeedAdjustMinProcesses || std::min(no, nn) < kSpeedAdjustMinPerRun) {
    out.why_not = std::to_string(no) + " + " + std::to_string(nn) +
                  " processes, where the fit needs " + std::to_string(kSpeedAdjustMinProcesses) +
                  " over both runs and " + std::to_string(kSpeedAdjustMinPerRun) + " in each";
    return out;
  }
  // The slope comes from the spread within each run only: the gap between the runs' mean
  // speeds is what it is used to explain, so it must not also fit it.
  const double sxx = o.sxx + n.sxx;
  // A spread of speed below a part in a million is no spread: the slope would be noise
  // over a rounding error.
  if (!(sxx > 1e-12 * (no + nn))) {
    out.why_not = "the processes' probe times within the runs do not differ";
    return out;
  }
  const double b = (o.sxy + n.sxy) / sxx;
  double rss = 0;
  for (const Run* r : {&o, &n}) {
    for (size_t i = 0; i < r->y.size(); ++i) {
      const double e = r->y[i] - r->mean_y - b * (r->x[i] - r->mean_x);
      rss += e * e;
    }
  }
  const double dof = no + nn - 3;
  const double s = std::sqrt(rss / dof);
  const double gap = n.mean_x - o.mean_x;
  const double v_old = s * s / no;
  const double v_new = s * s * (1.0 / nn + gap * gap / sxx);
  // Welch-Satterthwaite of two sides with dof d each is d (v1 + v2)^2 / (v1^2 + v2^2);
  // this d makes it the fit's own dof. It lies in [dof / 2, dof].
  const double sum = v_old + v_new;
  const double side_dof = sum > 0 ? dof * (v_old * v_old + v_new * v_new) / (sum * sum) : dof;
  out.old_side = Side(o, o.mean_y, std::sqrt(v_old), side_dof, s, confidence, imprecise_half_width);
  out.new_side =
      Side(n, n.mean_y - b * gap, std::sqrt(v_new), side_dof, s, confidence, imprecise_half_width);
  out.adjusted = true;
  out.slope = b;
  out.reference = o.mean_x;
  out.dof = dof;
  return out;
}

}  // namespace stats
}  // namespace trickbench
