// The few distribution functions trickbench's statistics need, without a numerics
// library: Student's t (CDF and quantile) and the standard normal.
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

}  // namespace stats
}  // namespace trickbench
