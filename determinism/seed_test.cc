#include "determinism/seed.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace trickbench {
namespace {

TEST(SeedEverything, SameSeedSameTensorsAndHarnessNumbers) {
  SeedEverything(7);
  auto a = torch::randn({16});
  auto ra = HarnessRng()();
  SeedEverything(7);
  auto b = torch::randn({16});
  auto rb = HarnessRng()();
  EXPECT_TRUE(torch::equal(a, b));
  EXPECT_EQ(ra, rb);
}

TEST(SeedEverything, DifferentSeedDifferentTensors) {
  SeedEverything(7);
  auto a = torch::randn({16});
  auto ra = HarnessRng()();
  SeedEverything(8);
  EXPECT_FALSE(torch::equal(a, torch::randn({16})));
  EXPECT_NE(ra, HarnessRng()());
}

}  // namespace
}  // namespace trickbench
