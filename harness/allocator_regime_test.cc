// SetUpInstance puts each case in its regime: measured in page faults of a 4 MB tensor.
#include "harness/allocator_regime.h"

#include <gtest/gtest.h>

#include "common/interference.h"

namespace trickbench {
namespace {

// Minor faults per iteration of allocating, touching and freeing a 4 MB tensor, after
// iterations that settle the heap (as the harness's warm-up does before timing: the
// reused regime's heap grows over the first few, around the tensors' small objects).
double FaultsPerTemporary() {
  auto once = [] { torch::empty({1 << 20}).fill_(1.0f); };
  for (int i = 0; i < 30; ++i) once();
  constexpr int kIterations = 20;
  const Interference before = SampleInterference();
  for (int i = 0; i < kIterations; ++i) once();
  return static_cast<double>((SampleInterference() - before).minor_faults) / kIterations;
}

TEST(AllocatorRegime, FreshPagesFaultEveryTemporaryInAndReusedPagesDoNot) {
  ApplyAllocatorRegime(kFreshPages);
  const double fresh = FaultsPerTemporary();
  ApplyAllocatorRegime(kReusedPages);
  const double reused = FaultsPerTemporary();
  // 4 MB is 1024 pages of 4 KiB (fewer faults where the kernel maps huge pages).
  EXPECT_GE(fresh, 500) << "fresh regime: " << fresh << " faults per 4 MB temporary";
  EXPECT_LE(reused, 10) << "reused regime: " << reused << " faults per 4 MB temporary";
}

TEST(AllocatorRegime, TheAxisIsCpuOnlyAndUnknownRegimesAreRefused) {
  const Axis a = AllocatorRegimeAxis();
  EXPECT_EQ(a.Labels(false), (std::vector<std::string>{"reused", "fresh"}));
  EXPECT_EQ(a.Labels(true), (std::vector<std::string>{""}));
  EXPECT_THROW(ApplyAllocatorRegime("warm"), std::invalid_argument);
}

class Records : public Trick {
 public:
  void SetUp(const Instance& s) override { set_up = s.case_name; }
  Tensors Result() override { return {}; }
  std::string set_up;
};

TEST(AllocatorRegime, SetUpInstanceAppliesTheCasesRegimeThenSetsUp) {
  TrickDef def("t", [] { return std::make_unique<Records>(); });
  def.Axis(AllocatorRegimeAxis());
  Records trick;
  SetUpInstance(trick, def.NewInstance("fresh", torch::kCPU, "v"));
  EXPECT_EQ(trick.set_up, "fresh");
  EXPECT_GE(FaultsPerTemporary(), 500);
  SetUpInstance(trick, def.NewInstance("reused", torch::kCPU, "v"));
  EXPECT_LE(FaultsPerTemporary(), 10);
}

// A case that names no regime runs in the default, not in whatever the case before it
// (here a "fresh" one) left behind.
TEST(AllocatorRegime, ACaseWithoutTheAxisRunsInTheDefaultRegime) {
  TrickDef with_axis("t", [] { return std::make_unique<Records>(); });
  with_axis.Axis(AllocatorRegimeAxis());
  TrickDef without("u", [] { return std::make_unique<Records>(); });
  Records trick;
  SetUpInstance(trick, with_axis.NewInstance("fresh", torch::kCPU, "v"));
  ASSERT_GE(FaultsPerTemporary(), 500);
  SetUpInstance(trick, without.NewInstance("", torch::kCPU, "v"));
  EXPECT_LE(FaultsPerTemporary(), 10) << "the default regime is " << kDefaultAllocatorRegime;
}

}  // namespace
}  // namespace trickbench
