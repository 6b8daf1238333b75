// SetUpInstance puts each case in its regime: measured in page faults of a 4 MB tensor.
#include "harness/allocator_regime.h"

#include <gtest/gtest.h>

#include "common/minor_faults_testing.h"

namespace trickbench {
namespace {

// Minor faults per 4 MB tensor allocated, touched and freed: LibTorch's CPU allocator
// goes through glibc, so the regime decides.
double FaultsPerTemporary() {
  return MinorFaultsPerCall([] { torch::empty({1 << 20}).fill_(1.0f); });
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
