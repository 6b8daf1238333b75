#include "stats/distributions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace trickbench {
namespace stats {
namespace {

// Continued fraction for I_x(a, b) (Numerical Recipes' betacf, modified Lentz).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

}  // namespace

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double NormalQuantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("NormalQuantile: p must be in (0, 1)");
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (NormalCdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double IncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

double StudentTCdf(double t, double dof) {
  if (!(dof > 0)) throw std::invalid_argument("StudentTCdf: dof must be > 0");
  if (std::isinf(dof)) return NormalCdf(t);
  const double x = dof / (dof + t * t);
  const double tail = 0.5 * IncompleteBeta(dof / 2, 0.5, x);  // P(T > |t|)
  return t >= 0 ? 1 - tail : tail;
}

double StudentTQuantile(double p, double dof) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("StudentTQuantile: p must be in (0, 1)");
  if (std::isinf(dof)) return NormalQuantile(p);
  double lo = -1e6, hi = 1e6;
  for (int i = 0; i < 300; ++i) {
    const double mid = 0.5 * (lo + hi);
    (StudentTCdf(mid, dof) < p ? lo : hi) = mid;
    if (hi - lo < 1e-12) break;
  }
  return 0.5 * (lo + hi);
}

double ChiSquareCdf(double x, double dof) {
  if (!(dof > 0)) throw std::invalid_argument("ChiSquareCdf: dof must be > 0");
  if (!(x > 0)) return 0;
  // The regularized lower incomplete gamma P(dof/2, x/2) by its series, which converges
  // for every x (the terms shrink once n > x/2); ample for the dofs a spread has here.
  const double a = dof / 2, y = x / 2;
  double term = 1 / a, sum = term;
  for (int n = 1; n < 10000 && term > sum * 1e-15; ++n) {
    term *= y / (a + n);
    sum += term;
  }
  return std::min(1.0, std::exp(a * std::log(y) - y - std::lgamma(a)) * sum);
}

double ChiSquareQuantile(double p, double dof) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("ChiSquareQuantile: p must be in (0, 1)");
  double lo = 0, hi = 10 * dof + 100;
  for (int i = 0; i < 300 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (ChiSquareCdf(mid, dof) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double ClopperPearsonUpper(int hits, int trials, double confidence) {
  if (trials <= 0 || hits < 0 || hits > trials || !(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("ClopperPearsonUpper: need 0 <= hits <= trials, trials > 0");
  }
  if (hits == trials) return 1;
  // The p with P(X <= hits | p) = 1 - confidence, i.e. I_p(hits + 1, trials - hits) =
  // confidence; the regularized incomplete beta rises in p: bisection.
  const double a = hits + 1, b = trials - hits;
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (IncompleteBeta(a, b, mid) < confidence ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace stats
}  // namespace trickbench
