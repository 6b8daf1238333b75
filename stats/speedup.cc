#include "stats/speedup.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace stats {
namespace {

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double SampleSd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double TwoSidedTP(double estimate, double se, double dof) {
  if (se <= 0) return estimate == 0 ? 1.0 : 0.0;
  return std::min(1.0, 2 * (1 - StudentTCdf(std::fabs(estimate / se), dof)));
}

// Sign-flip randomization test of "the process values are symmetric around 0": exact
// enumeration up to 2^16 sign patterns, Monte Carlo above.
double SignFlipP(const std::vector<double>& values, int resamples, std::mt19937_64* rng) {
  const double observed = std::fabs(std::accumulate(values.begin(), values.end(), 0.0));
  // Ties with the observed statistic count as at least as extreme; the tolerance keeps
  // rounding from deciding that.
  const double tol = 1e-12 * (1 + observed);
  const size_t n = values.size();
  if (n <= 16) {
    const uint64_t patterns = uint64_t{1} << n;
    uint64_t extreme = 0;
    for (uint64_t mask = 0; mask < patterns; ++mask) {
      double s = 0;
      for (size_t i = 0; i < n; ++i) s += (mask >> i & 1) ? -values[i] : values[i];
      if (std::fabs(s) >= observed - tol) ++extreme;
    }
    return static_cast<double>(extreme) / static_cast<double>(patterns);
  }
  std::bernoulli_distribution coin(0.5);
  int extreme = 0;
  for (int b = 0; b < resamples; ++b) {
    double s = 0;
    for (double v : values) s += coin(*rng) ? -v : v;
    if (std::fabs(s) >= observed - tol) ++extreme;
  }
  return (1.0 + extreme) / (1.0 + resamples);
}

}  // namespace

Speedup EstimateSpeedup(const std::vector<std::vector<double>>& log_ratios,
                        const SpeedupOptions& options) {
  if (!(options.confidence > 0 && options.confidence < 1)) {
    throw std::invalid_argument("EstimateSpeedup: confidence must be in (0, 1)");
  }
  std::vector<const std::vector<double>*> processes;
  for (const auto& p : log_ratios) {
    for (double x : p) {
      if (!std::isfinite(x))
        throw std::invalid_argument("EstimateSpeedup: a log ratio is not finite");
    }
    if (!p.empty()) processes.push_back(&p);
  }
  if (processes.empty()) throw std::invalid_argument("EstimateSpeedup: no round measured");

  Speedup s;
  s.processes = static_cast<int>(processes.size());
  std::vector<double> values;
  double within_ss = 0;
  for (const auto* p : processes) {
    const double m = Median(*p);
    values.push_back(m);
    for (double x : *p) within_ss += (x - m) * (x - m);
    s.rounds += static_cast<int>(p->size());
  }
  if (s.rounds > s.processes) within_ss /= static_cast<double>(s.rounds - s.processes);
  s.within_sd = std::sqrt(within_ss);
  s.between_sd = SampleSd(values);
  const double estimate = Mean(values);
  const double alpha = 1 - options.confidence;
  std::mt19937_64 rng(options.seed);
  double log_low = estimate, log_high = estimate;

  if (s.processes == 1) {
    // Rounds are the only replication: a bootstrap of the median over them.
    const std::vector<double>& rounds = *processes.front();
    std::vector<double> boot(static_cast<size_t>(options.resamples));
    std::uniform_int_distribution<size_t> pick(0, rounds.size() - 1);
    std::vector<double> sample(rounds.size());
    for (auto& b : boot) {
      for (auto& x : sample) x = rounds[pick(rng)];
      b = Median(sample);
    }
    std::sort(boot.begin(), boot.end());
    log_low = SortedQuantile(boot, alpha / 2);
    log_high = SortedQuantile(boot, 1 - alpha / 2);
    s.log_se = SampleSd(boot);
    s.dof = std::max(1, s.rounds - 1);
    s.method = "rounds";
  } else if (s.processes < kBootstrapMinProcesses) {
    s.log_se = s.between_sd / std::sqrt(static_cast<double>(s.processes));
    s.dof = s.processes - 1;
    const double t = StudentTQuantile(1 - alpha / 2, s.dof);
    log_low = estimate - t * s.log_se;
    log_high = estimate + t * s.log_se;
    s.method = "t";
  } else {
    // Two stages: which processes, then which rounds within each.
    std::vector<double> boot(static_cast<size_t>(options.resamples));
    std::uniform_int_distribution<size_t> pick_process(0, processes.size() - 1);
    std::vector<double> sample;
    for (auto& b : boot) {
      double sum = 0;
      for (size_t i = 0; i < processes.size(); ++i) {
        const std::vector<double>& rounds = *processes[pick_process(rng)];
        std::uniform_int_distribution<size_t> pick_round(0, rounds.size() - 1);
        sample.resize(rounds.size());
        for (auto& x : sample) x = rounds[pick_round(rng)];
        sum += Median(sample);
      }
      b = sum / static_cast<double>(processes.size());
    }
    // Calibration. Resampling rounds again inside resampled processes counts the
    // within-process noise twice, and a percentile interval over P processes is a z
    // interval with a (P-1)/P variance: both measured in stats_test, the first too wide,
    // the second too narrow. So the bootstrap gives the interval's shape (skew), and its
    // scale is set to the unbiased variance of the process values with t quantiles.
    std::sort(boot.begin(), boot.end());
    const double boot_sd = SampleSd(boot);
    const double center = SortedQuantile(boot, 0.5);
    s.log_se = s.between_sd / std::sqrt(static_cast<double>(s.processes));
    s.dof = s.processes - 1;
    const double scale = boot_sd > 0
                             ? (s.log_se / boot_sd) * StudentTQuantile(1 - alpha / 2, s.dof) /
                                   NormalQuantile(1 - alpha / 2)
                             : 0;
    log_low = estimate + (SortedQuantile(boot, alpha / 2) - center) * scale;
    log_high = estimate + (SortedQuantile(boot, 1 - alpha / 2) - center) * scale;
    s.method = "bootstrap";
  }

  if (s.processes >= kSignFlipMinProcesses) {
    s.p_value = SignFlipP(values, options.resamples, &rng);
    s.p_method = "sign_flip";
  } else {
    s.p_value = TwoSidedTP(estimate, s.log_se, s.dof);
    s.p_method = "t";
  }
  s.speedup = std::exp(estimate);
  s.low = std::exp(log_low);
  s.high = std::exp(log_high);
  s.half_width = std::max(s.high / s.speedup - 1, 1 - s.low / s.speedup);
  s.imprecise = s.half_width > options.imprecise_half_width;
  return s;
}

Settle ToSettle(const Speedup& s, double target_half_width, double confidence) {
  Settle out;
  const int rounds_now = std::max(1, s.rounds / std::max(1, s.processes));
  // The median of R rounds has about pi/2 times the variance of their mean.
  constexpr double kMedianEfficiency = 1.5708;
  const double within_var = kMedianEfficiency * s.within_sd * s.within_sd;
  // The between-process variance that more rounds cannot remove. With one process it
  // is unknown: assume it is as large as the within-process part, not zero.
  const double process_var =
      s.processes >= 2 ? std::max(0.0, s.between_sd * s.between_sd - within_var / rounds_now)
                       : within_var / rounds_now;
  const double target = std::log1p(target_half_width);
  const double alpha = 1 - confidence;
  int best_cost = std::numeric_limits<int>::max();
  for (int rounds : {rounds_now, 2 * rounds_now, 4 * rounds_now}) {
    for (int p = 2; p <= 1000; ++p) {
      const double se = std::sqrt((process_var + within_var / rounds) / p);
      if (StudentTQuantile(1 - alpha / 2, p - 1) * se <= target) {
        // A process costs start-up and checks, about as much as its rounds again.
        const int cost = p * (rounds + rounds_now);
        if (cost < best_cost) {
          best_cost = cost;
          out.processes = p;
          out.rounds_per_process = rounds;
        }
        break;
      }
    }
  }
  out.reachable = best_cost != std::numeric_limits<int>::max();
  return out;
}

std::string ChangeOutcomeName(ChangeOutcome o) {
  switch (o) {
    case ChangeOutcome::kFaster:
      return "faster";
    case ChangeOutcome::kSlower:
      return "slower";
    case ChangeOutcome::kUnchanged:
      return "unchanged";
    case ChangeOutcome::kUnknown:
      return "unknown";
  }
  return "unknown";
}

Change CompareSpeedups(const Speedup& old_s, const Speedup& new_s, double confidence) {
  Change c;
  const double d = std::log(new_s.speedup) - std::log(old_s.speedup);
  const double v1 = old_s.log_se * old_s.log_se, v2 = new_s.log_se * new_s.log_se;
  const double se = std::sqrt(v1 + v2);
  // Welch-Satterthwaite degrees of freedom of the combined standard error.
  double dof = std::numeric_limits<double>::infinity();
  const double denom =
      (old_s.dof > 0 ? v1 * v1 / old_s.dof : 0) + (new_s.dof > 0 ? v2 * v2 / new_s.dof : 0);
  if (denom > 0) dof = std::max(1.0, (v1 + v2) * (v1 + v2) / denom);
  const double t = StudentTQuantile(1 - (1 - confidence) / 2, dof);
  c.ratio = std::exp(d);
  c.low = std::exp(d - t * se);
  c.high = std::exp(d + t * se);
  c.log_se = se;
  c.dof = std::isfinite(dof) ? dof : 0;
  c.p_value = TwoSidedTP(d, se, dof);
  c.p_adjusted = c.p_value;
  return c;
}

Change ComparePaired(const std::vector<double>& log_ratios, double confidence) {
  if (log_ratios.size() < 2) throw std::invalid_argument("ComparePaired: needs at least two pairs");
  for (double x : log_ratios) {
    if (!std::isfinite(x)) throw std::invalid_argument("ComparePaired: a log ratio is not finite");
  }
  const double n = static_cast<double>(log_ratios.size());
  const double d = Mean(log_ratios), se = SampleSd(log_ratios) / std::sqrt(n), dof = n - 1;
  const double t = StudentTQuantile(1 - (1 - confidence) / 2, dof);
  Change c;
  c.ratio = std::exp(d);
  c.low = std::exp(d - t * se);
  c.high = std::exp(d + t * se);
  c.log_se = se;
  c.dof = dof;
  c.p_value = TwoSidedTP(d, se, dof);
  c.p_adjusted = c.p_value;
  return c;
}

std::vector<double> HolmAdjust(const std::vector<double>& p_values) {
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (size_t k = 0; k < m; ++k) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - k) * p_values[order[k]]));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

void Decide(std::vector<Change>* changes, const DecisionRule& rule) {
  std::vector<double> p;
  for (const auto& c : *changes) p.push_back(c.p_value);
  const std::vector<double> adjusted = HolmAdjust(p);
  const double m = std::log1p(rule.min_effect);
  for (size_t i = 0; i < changes->size(); ++i) {
    Change& c = (*changes)[i];
    c.p_adjusted = adjusted[i];
    const double effect = std::log(c.ratio);
    const auto [low, high] = EquivalenceInterval(c, rule.alpha);
    if (c.p_adjusted < rule.alpha && std::fabs(effect) > m) {
      c.outcome = effect > 0 ? ChangeOutcome::kFaster : ChangeOutcome::kSlower;
    } else if (std::log(low) > -m && std::log(high) < m) {
      c.outcome = ChangeOutcome::kUnchanged;
    } else {
      c.outcome = ChangeOutcome::kUnknown;
    }
  }
}

std::pair<double, double> EquivalenceInterval(const Change& c, double alpha) {
  const double dof = c.dof > 0 ? c.dof : std::numeric_limits<double>::infinity();
  const double half = StudentTQuantile(1 - alpha, dof) * c.log_se;
  const double d = std::log(c.ratio);
  return {std::exp(d - half), std::exp(d + half)};
}

double MinimumDetectableEffect(const Speedup& s, double alpha, double power) {
  const double dof = s.dof > 0 ? s.dof : std::numeric_limits<double>::infinity();
  const double k = StudentTQuantile(1 - alpha / 2, dof) + StudentTQuantile(power, dof);
  return std::expm1(k * s.log_se);
}

}  // namespace stats
}  // namespace trickbench
