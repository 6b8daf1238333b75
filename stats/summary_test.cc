#include "stats/summary.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace trickbench {
namespace stats {
namespace {

TEST(Summary, QuantilesInterpolateLikeNumpy) {
  const std::vector<double> v = {7, 1, 3, 5, 9};  // numpy.percentile(v, [25, 50, 75]) = 3, 5, 7
  EXPECT_DOUBLE_EQ(Quantile(v, 0.25), 3);
  EXPECT_DOUBLE_EQ(Median(v), 5);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.75), 7);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(Quantile({4}, 0.9), 4);
}

// The selection median and the interpolated quantile at 0.5 are one rule.
TEST(Summary, EvenCountMedianIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2, 4}), 2.5);
  EXPECT_DOUBLE_EQ(Median({3, 1, 2, 4}), Quantile({3, 1, 2, 4}, 0.5));
  EXPECT_DOUBLE_EQ(Median({5, -1}), 2);
}

TEST(Summary, SummarizesSpreadAndCentre) {
  const Summary s = Summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stddev, 2.138089935, 1e-8);
  EXPECT_NEAR(s.cv, 2.138089935 / 5, 1e-8);
  EXPECT_DOUBLE_EQ(s.iqr, 5.5 - 4);
  EXPECT_DOUBLE_EQ(s.relative_iqr, 1.5 / 4.5);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_EQ(Summarize({}).n, 0);
}

TEST(Summary, NoValuesIsAnError) {
  EXPECT_THROW(Median({}), std::invalid_argument);
  EXPECT_THROW(Quantile({}, 0.5), std::invalid_argument);
}

}  // namespace
}  // namespace stats
}  // namespace trickbench
