// The H200 sizing rule on hand-made tricks: the floor, the L2 check for traffic claims,
// the exemptions, and a trick that declares nothing.
#include "harness/sizing.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace trickbench {
namespace {

class Noop : public Trick {
 public:
  Tensors Result() override { return {}; }
  void Small() {}
  void Big() {}
};

TrickDef Def() {
  TrickDef def("t", [] { return std::make_unique<Noop>(); });
  def.Variant("small", &Noop::Small).Variant("big", &Noop::Big);
  return def;
}

// `n` GFLOP for the big variant, half of it for the small one, and `mb` MB moved/held.
TrickDef::WorkFn Gflop(double mb = 0) {
  return [mb](const Instance& s) {
    const double scale = s.variant == "small" ? 0.5 : 1.0;
    return CaseWork{
        .flop = scale * 1e9 * s.params.Int("n"), .bytes = mb * 1e6, .working_set = mb * 1e6};
  };
}

TEST(H200Seconds, TheSlowestOfFlopMemoryAndHostCopies) {
  EXPECT_DOUBLE_EQ(H200Seconds({.flop = 790e12}), 1.0);
  EXPECT_DOUBLE_EQ(H200Seconds({.flop = 790e9, .bytes = 8.6e12}), 2.0);
  EXPECT_DOUBLE_EQ(H200Seconds({.bytes = 4.3e9, .host_bytes = 64e9 * 3}), 3.0);
}

TEST(SizeForH200, EveryCudaCaseIsHeldToTheFloorByItsSmallestVariant) {
  TrickDef def = Def();
  // 100 us at 790 TFLOP/s is 79 GFLOP: the small variant of n200 does 100 GFLOP, of n100 50.
  def.Axis(Axis::Int("n", {1}).OnCuda({100, 200})).Work(Gflop());
  const std::vector<SizingRow> rows = SizeForH200(def);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].case_name, "n100");
  EXPECT_EQ(rows[0].variant, "small");
  EXPECT_NEAR(rows[0].seconds, 50e9 / 790e12, 1e-12);
  EXPECT_EQ(rows[0].problem,
            "variant small does 63.3 us of work at an H200's peaks, under the 100.0 us floor: a "
            "GPU would time its launches");
  EXPECT_EQ(rows[1].case_name, "n200");
  EXPECT_EQ(rows[1].problem, "");
  EXPECT_EQ(rows[1].exemption, "");
}

TEST(SizeForH200, ATrafficClaimNeedsAWorkingSetBeyondTheL2) {
  TrickDef def = Def();
  def.Axis(Axis::Int("n", {1}).OnCuda({1000})).TrafficBound().Work(Gflop(/*mb=*/50));
  ASSERT_EQ(SizeForH200(def).size(), 1u);
  EXPECT_EQ(SizeForH200(def)[0].problem,
            "working set 50.0 MB fits in an H200's 60.0 MB L2, and the claim is about memory "
            "traffic");
  def.Work(Gflop(/*mb=*/500));
  EXPECT_EQ(SizeForH200(def)[0].problem, "");
}

TEST(SizeForH200, ExemptionsAreOneRowWithTheirReason) {
  TrickDef launch = Def();
  launch.LaunchBound("the claim is the launches of 1000 small ops");
  ASSERT_EQ(SizeForH200(launch).size(), 1u);
  EXPECT_EQ(SizeForH200(launch)[0].exemption,
            "launch bound: the claim is the launches of 1000 small ops");
  EXPECT_EQ(SizeForH200(launch)[0].problem, "");
  TrickDef host = Def();
  host.HostSide("JPEG decoding on the CPU");
  EXPECT_EQ(SizeForH200(host)[0].exemption, "host side: JPEG decoding on the CPU");
  EXPECT_THROW(Def().LaunchBound(""), std::invalid_argument);
  EXPECT_THROW(Def().HostSide(""), std::invalid_argument);
}

TEST(SizeForH200, NoDeclarationOrAThrowingWorkFunctionIsAProblem) {
  const std::vector<SizingRow> none = SizeForH200(Def());
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].problem.find("declares no work"), std::string::npos) << none[0].problem;
  TrickDef def = Def();
  def.Work(Gflop());  // reads an axis "n" that the trick never declared
  const std::vector<SizingRow> threw = SizeForH200(def);
  ASSERT_EQ(threw.size(), 1u);
  EXPECT_EQ(threw[0].problem, "Work() threw for variant small: case \"\" has no int axis \"n\"");
}

}  // namespace
}  // namespace trickbench
