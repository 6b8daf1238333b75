// The few distribution functions trickbench's statistics need, without a numerics
// library: Student's t (CDF and quantile), the standard normal, chi-square, and the Clopper-Pearson
// bound on a binomial rate.
//
//   double t = trickbench::stats::StudentTQuantile(0.975, 4);   // 2.776
//   double p = 2 * (1 - trickbench::stats::StudentTCdf(3.1, 4)); // two-sided p
//
// Accuracy: the regularized incomplete beta is evaluated by its continued fraction
// (Lentz), good to ~1e-12 here; the quantile is a bisection on the CDF, so both agree
// exactly with each other, which is what an interval and its p-value need.
#pragma once

namespace trickbench {
namespace stats {

double NormalCdf(double x);
double NormalQuantile(double p);  // 0 < p < 1
// Regularized incomplete beta I_x(a, b), 0 <= x <= 1, a, b > 0.
double IncompleteBeta(double a, double b, double x);
// dof > 0; dof = infinity gives the normal distribution.
double StudentTCdf(double t, double dof);
double StudentTQuantile(double p, double dof);  // 0 < p < 1

// Chi-square with `dof` degrees of freedom (> 0): what a sample variance's upper bound
// needs (stats/allocation.h).
double ChiSquareCdf(double x, double dof);
double ChiSquareQuantile(double p, double dof);  // 0 < p < 1

// The one-sided upper `confidence` bound on a binomial rate with `hits` out of
// `trials` (Clopper-Pearson: the Beta(hits + 1, trials - hits) quantile; 1 when every
// trial hit): what a false-alarm rate seen in a noise study may really be.
// trials > 0, 0 <= hits <= trials, 0 < confidence < 1 (std::invalid_argument otherwise).
double ClopperPearsonUpper(int hits, int trials, double confidence = 0.95);

}  // namespace stats
}  // namespace trickbench
