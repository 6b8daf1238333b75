#include "reports/stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace reports {

double NormalTwoSidedP(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

namespace {

// Counts of arrangements by U for sizes m, n: the coefficients of the Gaussian
// binomial [m+n choose m]_q, built one factor (1 - q^(n+i)) / (1 - q^i) at a time.
std::vector<long double> UFrequencies(int m, int n) {
  const int top = m * n;
  std::vector<long double> c(top + 1, 0.0L);
  c[0] = 1;
  for (int i = 1; i <= m; ++i) {
    for (int k = top; k >= n + i; --k) c[k] -= c[k - (n + i)];
    for (int k = i; k <= top; ++k) c[k] += c[k - i];
  }
  return c;
}

constexpr int kExactLimit = 10000;  // m*n up to which the exact U distribution is used

}  // namespace

double MannWhitneyExactCdf(int m, int n, int u) {
  if (u < 0) return 0;
  if (u >= m * n) return 1;
  const auto c = UFrequencies(m, n);
  long double total = 0, below = 0;
  for (int k = 0; k <= m * n; ++k) {
    total += c[k];
    if (k <= u) below += c[k];
  }
  return static_cast<double>(below / total);
}

UTest MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("MannWhitneyU needs both samples");
  const int m = static_cast<int>(x.size()), n = static_cast<int>(y.size());
  std::vector<std::pair<double, int>> all;
  for (double v : x) all.emplace_back(v, 0);
  for (double v : y) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const int total = m + n;
  double rank_sum_x = 0, tie_term = 0;
  bool ties = false;
  for (int i = 0; i < total;) {
    int j = i;
    while (j < total && all[j].first == all[i].first) ++j;
    const double rank = (i + 1 + j) / 2.0;  // average of ranks i+1..j
    const double t = j - i;
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    for (int k = i; k < j; ++k) {
      if (all[k].second == 0) rank_sum_x += rank;
    }
    i = j;
  }
  UTest r;
  r.u = rank_sum_x - m * (m + 1) / 2.0;
  const double u_max = std::max(r.u, static_cast<double>(m) * n - r.u);
  if ((m > 8 && n > 8) || ties) {
    const double mu = m * static_cast<double>(n) / 2;
    const double var = m * static_cast<double>(n) / 12.0 *
                       ((total + 1) - tie_term / (static_cast<double>(total) * (total - 1)));
    if (var <= 0) {
      r.p_value = 1;
      return r;
    }
    const double z = (u_max - mu - 0.5) / std::sqrt(var);
    r.p_value = std::min(1.0, 2 * 0.5 * std::erfc(z / std::sqrt(2.0)));
  } else {
    r.exact = true;
    // P(U >= u_max) = P(U <= m*n - u_max) by symmetry.
    const int low = static_cast<int>(std::lround(m * static_cast<double>(n) - u_max));
    r.p_value = std::min(1.0, 2 * MannWhitneyExactCdf(m, n, low));
  }
  return r;
}

RatioCI RatioInterval(const std::vector<double>& x, const std::vector<double>& y,
                      double confidence) {
  if (x.empty() || y.empty()) throw std::invalid_argument("RatioInterval needs both samples");
  for (const auto* v : {&x, &y}) {
    for (double t : *v) {
      if (!(t > 0) || !std::isfinite(t)) {
        throw std::invalid_argument("RatioInterval needs positive finite values");
      }
    }
  }
  const int m = static_cast<int>(x.size()), n = static_cast<int>(y.size());
  const int mn = m * n;
  std::vector<double> d;
  d.reserve(mn);
  for (double a : x) {
    for (double b : y) d.push_back(std::log(a) - std::log(b));
  }
  std::sort(d.begin(), d.end());
  const double alpha = 1 - confidence;
  int k = 0;  // largest k with P(U <= k-1) <= alpha/2
  if (mn <= kExactLimit) {
    const auto c = UFrequencies(m, n);
    long double total = 0;
    for (auto v : c) total += v;
    long double below = 0;
    for (int u = 0; u < mn; ++u) {
      below += c[u];
      if (below / total > alpha / 2) break;
      k = u + 1;
    }
  } else {
    const double z = stats::NormalQuantile(1 - alpha / 2);
    k = static_cast<int>(std::floor(mn / 2.0 - z * std::sqrt(mn * (m + n + 1) / 12.0)));
  }
  k = std::max(1, std::min(k, (mn + 1) / 2));
  RatioCI r;
  r.order_statistic = k;
  r.low = std::exp(d[k - 1]);
  r.high = std::exp(d[mn - k]);
  r.ratio = stats::Median(x) / stats::Median(y);
  r.hodges_lehmann = std::exp(stats::Median(d));
  return r;
}

}  // namespace reports
}  // namespace trickbench
