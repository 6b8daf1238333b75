#include "stats/distributions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace trickbench {
namespace stats {
namespace {

TEST(ClopperPearsonUpper, MatchesTheBinomialTail) {
  // Values where P(X <= hits | p) = 0.05, from the binomial CDF by bisection.
  EXPECT_NEAR(ClopperPearsonUpper(1, 10), 0.3941633024, 1e-9);
  EXPECT_NEAR(ClopperPearsonUpper(0, 20), 0.1391083407, 1e-9);  // 1 - 0.05^(1/20)
  EXPECT_NEAR(ClopperPearsonUpper(2, 21), 0.2705516993, 1e-9);
  EXPECT_NEAR(ClopperPearsonUpper(0, 1), 0.95, 1e-12);
  EXPECT_EQ(ClopperPearsonUpper(7, 7), 1);
  // A 99% bound lies above the 95% one; more hits, a higher bound.
  EXPECT_GT(ClopperPearsonUpper(1, 10, 0.99), ClopperPearsonUpper(1, 10));
  EXPECT_GT(ClopperPearsonUpper(2, 10), ClopperPearsonUpper(1, 10));
  // The bound is never below the rate itself.
  for (int hits = 0; hits <= 30; ++hits) EXPECT_GE(ClopperPearsonUpper(hits, 30), hits / 30.0);
}

TEST(ClopperPearsonUpper, RefusesImpossibleCounts) {
  EXPECT_THROW(ClopperPearsonUpper(0, 0), std::invalid_argument);
  EXPECT_THROW(ClopperPearsonUpper(-1, 5), std::invalid_argument);
  EXPECT_THROW(ClopperPearsonUpper(6, 5), std::invalid_argument);
  EXPECT_THROW(ClopperPearsonUpper(1, 5, 1.0), std::invalid_argument);
}

TEST(Distributions, TQuantilesMatchTables) {
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.7062, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 2), 4.3027, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 4), 2.7764, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 30), 2.0423, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.8, 10), 0.8791, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.025, 4), -2.7764, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, std::numeric_limits<double>::infinity()), 1.95996, 1e-4);
}

TEST(Distributions, CdfAndQuantileAgree) {
  for (double dof : {1.0, 2.5, 7.0, 100.0}) {
    for (double p : {0.01, 0.3, 0.5, 0.9, 0.999}) {
      EXPECT_NEAR(StudentTCdf(StudentTQuantile(p, dof), dof), p, 1e-7) << dof << " " << p;
    }
  }
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963985, 1e-8);
  EXPECT_NEAR(NormalCdf(NormalQuantile(0.975)), 0.975, 1e-12);
  EXPECT_NEAR(IncompleteBeta(2, 3, 0.4), 0.5248, 1e-4);
}

TEST(Distributions, RejectsBadArguments) {
  EXPECT_THROW(StudentTQuantile(0, 3), std::invalid_argument);
  EXPECT_THROW(StudentTQuantile(1, 3), std::invalid_argument);
  EXPECT_THROW(StudentTCdf(1, 0), std::invalid_argument);
  EXPECT_THROW(NormalQuantile(1.5), std::invalid_argument);
}

TEST(Distributions, ChiSquareAgreesWithTables) {
  // Two dof: the CDF is 1 - exp(-x/2) exactly.
  EXPECT_NEAR(ChiSquareCdf(1.0, 2), 1 - std::exp(-0.5), 1e-12);
  EXPECT_NEAR(ChiSquareQuantile(0.2, 2), -2 * std::log(0.8), 1e-9);
  // Table values: chi2(0.05, 10) = 3.9403, chi2(0.95, 1) = 3.8415.
  EXPECT_NEAR(ChiSquareQuantile(0.05, 10), 3.9403, 1e-4);
  EXPECT_NEAR(ChiSquareQuantile(0.95, 1), 3.8415, 1e-4);
  EXPECT_EQ(ChiSquareCdf(0, 3), 0);
  EXPECT_THROW(ChiSquareQuantile(1, 3), std::invalid_argument);
  EXPECT_THROW(ChiSquareCdf(1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace stats
}  // namespace trickbench
