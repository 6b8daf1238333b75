// Statistics for benchmark repetitions (schema 1 files): the Mann-Whitney U test, and the
// confidence interval of a ratio of times.
//
//   const auto u = trickbench::reports::MannWhitneyU(baseline_ns, optimized_ns);
//   const auto r = trickbench::reports::RatioInterval(baseline_ns, optimized_ns, 0.95);
//   // r.low..r.high brackets median(baseline)/median(optimized) at 95 %.
//
// The U test is the one Google Benchmark's compare.py runs (scipy's mannwhitneyu,
// two-sided, method "auto": exact distribution when either side has at most 8 samples
// and there are no ties, otherwise the normal approximation with tie and continuity
// correction), so p-values agree with compare.py on the same samples.
#pragma once

#include <cstdint>
#include <vector>

namespace trickbench {
namespace reports {

struct UTest {
  double u = 0;        // U statistic of the first sample (scipy's U1)
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (else normal approximation)
};
// Needs at least one value on each side; p_value is 1 when every value is equal.
UTest MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y);

// P(U <= u) under the null for sample sizes m and n, without ties (exact).
double MannWhitneyExactCdf(int m, int n, int u);

struct RatioCI {
  double ratio = 0;  // median(x) / median(y): the point estimate
  double low = 0, high = 0;
  double hodges_lehmann = 0;  // exp(median of pairwise log differences)
  int order_statistic = 0;    // k: the interval is [D_(k), D_(mn+1-k)]
};
// Distribution-free interval for the ratio of two positive samples (Hodges-Lehmann /
// Bauer 1972): on log times, the shift that the U test would not reject at
// 1 - confidence lies between the k-th smallest and k-th largest of the m*n pairwise
// differences log x_i - log y_j, with k from the U distribution (exact for m*n up to
// 10000, normal approximation above). Deterministic: no resampling, no seed.
// Requires positive values; with too few samples for the confidence asked, the
// interval is the full range of pairwise ratios.
RatioCI RatioInterval(const std::vector<double>& x, const std::vector<double>& y,
                      double confidence);

// Two-sided standard normal tail: P(|Z| >= z).
double NormalTwoSidedP(double z);

}  // namespace reports
}  // namespace trickbench
