#include "determinism/seed.h"

#include <gtest/gtest.h>
#include <torch/types.h>

#include <set>
#include <string>

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

namespace trickbench {
namespace {

TEST(RngState, RoundTripResumesEveryGenerator) {
  SeedEverything(11);
  torch::randn({100});  // advance past the seeded start
  HarnessRng()();
  const RngState saved = CaptureRngState();
  const auto t1 = torch::randn({16});
  const auto d1 = torch::bernoulli(torch::full({64}, 0.5));
  const auto h1 = HarnessRng()();
  SeedEverything(12);  // scramble everything
  torch::randn({7});
  RestoreRngState(saved);
  EXPECT_EQ(CaptureRngState(), saved);
  EXPECT_TRUE(torch::equal(torch::randn({16}), t1));
  EXPECT_TRUE(torch::equal(torch::bernoulli(torch::full({64}, 0.5)), d1));
  EXPECT_EQ(HarnessRng()(), h1);
}

TEST(RngState, CaptureSeesEveryGeneratorAdvance) {
  SeedEverything(3);
  const RngState start = CaptureRngState();
  torch::rand({1});
  EXPECT_NE(CaptureRngState(), start) << "the CPU generator's advance went unseen";
  SeedEverything(3);
  HarnessRng()();
  EXPECT_NE(CaptureRngState(), start) << "the harness generator's advance went unseen";
}

TEST(RngState, SurvivesAFile) {
  SeedEverything(5);
  const RngState saved = CaptureRngState();
  const std::string path = ::testing::TempDir() + "/rng_state.pt";
  SaveRngState(saved, path);
  const auto expected = torch::randn({8});
  SeedEverything(6);
  RestoreRngState(LoadRngState(path));
  EXPECT_TRUE(torch::equal(torch::randn({8}), expected));
}

TEST(RngState, BadInputIsRejectedWithoutChangingAnything) {
  EXPECT_THROW(LoadRngState(::testing::TempDir() + "/no_such_file.pt"), std::runtime_error);
  SeedEverything(9);
  const RngState before = CaptureRngState();
  RngState bad = before;
  bad.harness = "not a generator state";
  EXPECT_THROW(RestoreRngState(bad), std::invalid_argument);
  bad = before;
  bad.cuda.push_back(before.cpu);  // one CUDA generator more than this process has
  EXPECT_THROW(RestoreRngState(bad), std::invalid_argument);
  EXPECT_THROW(RestoreRngState(RngState{}), std::invalid_argument);
  EXPECT_EQ(CaptureRngState(), before);
}

TEST(SampleSeed, DistinctForNeighbouringTriples) {
  std::set<uint64_t> seen;
  for (uint64_t seed : {0u, 1u}) {
    for (uint64_t epoch = 0; epoch < 4; ++epoch) {
      for (uint64_t index = 0; index < 64; ++index) seen.insert(SampleSeed(seed, epoch, index));
    }
  }
  EXPECT_EQ(seen.size(), 2u * 4 * 64);
  EXPECT_EQ(SampleSeed(1, 2, 3), SampleSeed(1, 2, 3));
  EXPECT_NE(SampleSeed(0, 1, 0), SampleSeed(0, 0, 1));
}

}  // namespace
}  // namespace trickbench
