#include "common/speed_probe.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trickbench {
namespace {

// The loop does its work: its result is the same for the same steps, and another for
// other steps (a loop the compiler dropped would return 1 for any).
TEST(SpeedProbe, ComputesWhatItsStepsDetermine) {
  const SpeedProbe a = RunSpeedProbe(1000), b = RunSpeedProbe(1000), c = RunSpeedProbe(1001);
  EXPECT_EQ(a.checksum, b.checksum);
  EXPECT_NE(a.checksum, c.checksum);
  EXPECT_NE(RunSpeedProbe().checksum, 1u);
}

TEST(SpeedProbe, TakesAPositiveFiniteTime) {
  const SpeedProbe p = RunSpeedProbe();
  EXPECT_GT(p.ns, 0);
  EXPECT_TRUE(std::isfinite(p.ns));
  EXPECT_GE(RunSpeedProbe(0).ns, 0);
}

}  // namespace
}  // namespace trickbench
