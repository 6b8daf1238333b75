#include "run_all/noise_study.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace trickbench {
namespace run_all {
namespace noise {
namespace {

TEST(Tally, CountsAndRates) {
  Tally t;
  EXPECT_EQ(t.Rate(), 0);
  t.Add(true);
  t.Add(false);
  t.Add(false);
  t.Add(true);
  EXPECT_EQ(t.comparisons, 4);
  EXPECT_EQ(t.hits, 2);
  EXPECT_DOUBLE_EQ(t.Rate(), 0.5);
  Tally pooled;
  pooled.Add(t);
  pooled.Add(t);
  EXPECT_EQ(pooled.comparisons, 8);
  EXPECT_EQ(pooled.hits, 4);
}

TEST(SettingStudy, TheMdeIsTheMedianOfItsComparisons) {
  SettingStudy b;
  EXPECT_FALSE(b.Mde().has_value());
  b.mdes = {0.30, 0.10, 0.20};
  EXPECT_DOUBLE_EQ(*b.Mde(), 0.20);
  b.mdes.push_back(0.40);
  EXPECT_DOUBLE_EQ(*b.Mde(), 0.25);
}

TEST(DefaultTricks, AtLeastEightDistinct) {
  const auto& t = DefaultTricks();
  EXPECT_GE(t.size(), 8u);
  EXPECT_EQ(std::set<std::string>(t.begin(), t.end()).size(), t.size());
}

TEST(AnalyzeStudy, NoSessionsNoComparisons) {
  const StudyResult r = AnalyzeStudy({}, {});
  EXPECT_TRUE(r.settings.empty());
  EXPECT_EQ(r.pooled_false_alarms.comparisons, 0);
  const results::Json j = ToJson(r);
  EXPECT_TRUE(j["pooled_false_alarms"]["rate"].is_null());
  EXPECT_TRUE(j["pooled_false_alarms"]["upper_95"].is_null());
}

}  // namespace
}  // namespace noise
}  // namespace run_all
}  // namespace trickbench
