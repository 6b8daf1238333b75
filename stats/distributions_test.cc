#include "stats/distributions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace trickbench {
namespace stats {
namespace {

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
  EXPECT_NEAR(NormalCdf(NormalQuantile(0.975)), 0.975, 1e-12);
  EXPECT_NEAR(IncompleteBeta(2, 3, 0.4), 0.5248, 1e-4);
}

TEST(Distributions, RejectsBadArguments) {
  EXPECT_THROW(StudentTQuantile(0, 3), std::invalid_argument);
  EXPECT_THROW(StudentTQuantile(1, 3), std::invalid_argument);
  EXPECT_THROW(StudentTCdf(1, 0), std::invalid_argument);
  EXPECT_THROW(NormalQuantile(1.5), std::invalid_argument);
}

}  // namespace
}  // namespace stats
}  // namespace trickbench
