// The one median and quantile rule of trickbench, and a sample's summary: every median
// in the harness, the reports, the noise study and the speedup statistics is this one.
//
//   const double m = stats::Median({3, 1, 2, 4});        // 2.5
//   const double q = stats::Quantile({1, 2, 3, 4}, 0.25);  // 1.75
//   const stats::Summary s = stats::Summarize(samples_ns);  // s.median, s.iqr, s.cv ...
//
// Quantiles interpolate linearly between order statistics (numpy's default, "type 7"),
// so a reader reproduces them with numpy.percentile; the median of an even count is the
// mean of the two middle values. Why one rule: two medians that differ only for even
// counts made one run's console and report disagree in the last digit.
#pragma once

#include <vector>

namespace trickbench {
namespace stats {

// Throw std::invalid_argument on no values.
double Quantile(std::vector<double> values, double q);
double Median(std::vector<double> values);  // O(n): a selection, not a sort

// Quantile of values already sorted ascending (the bootstrap's inner loop).
double SortedQuantile(const std::vector<double>& sorted, double q);

struct Summary {
  int n = 0;
  double median = 0, q1 = 0, q3 = 0, iqr = 0;
  double mean = 0, stddev = 0;  // stddev with n-1
  double cv = 0;                // stddev / mean
  double relative_iqr = 0;      // iqr / median: the noise measure (see reports/SCHEMA.md)
  double min = 0, max = 0;
};
Summary Summarize(const std::vector<double>& values);  // all zero for no values

}  // namespace stats
}  // namespace trickbench
