#include "stats/summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace trickbench {
namespace stats {

double SortedQuantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("Quantile of no values");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return SortedQuantile(values, q);
}

double Median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("Median of no values");
  const size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  const double hi = v[n / 2];
  if (n % 2 == 1) return hi;
  return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + n / 2));
}

Summary Summarize(const std::vector<double>& values) {
  Summary s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  s.median = SortedQuantile(sorted, 0.5);
  s.q1 = SortedQuantile(sorted, 0.25);
  s.q3 = SortedQuantile(sorted, 0.75);
  s.iqr = s.q3 - s.q1;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / s.n;
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.stddev = s.n > 1 ? std::sqrt(ss / (s.n - 1)) : 0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
  s.relative_iqr = s.median > 0 ? s.iqr / s.median : 0;
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

}  // namespace stats
}  // namespace trickbench
