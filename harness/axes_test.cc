// Typed case axes: names, CUDA values, the shorthand, and the errors a trick author meets.
#include "harness/axes.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/trick.h"

namespace trickbench {
namespace {

std::vector<std::string> Names(const std::vector<CaseParams>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases) out.push_back(c.name());
  return out;
}

TEST(Axes, ProductNamesTheCasesFirstAxisSlowest) {
  const std::vector<Axis> axes = {Axis::String("mode", {"train", "infer"}),
                                  Axis::Int("n", {256, 1024})};
  const auto cases = ExpandCases(axes, /*cuda=*/false);
  EXPECT_EQ(Names(cases),
            (std::vector<std::string>{"train_n256", "train_n1024", "infer_n256", "infer_n1024"}));
  EXPECT_EQ(cases[1].String("mode"), "train");
  EXPECT_EQ(cases[1].Int("n"), 1024);
  EXPECT_TRUE(cases[1].Has("n"));
  EXPECT_FALSE(cases[1].Has("m"));
}

TEST(Axes, CudaValuesReplaceTheCpusAndAnEmptyLabelAddsNothing) {
  const std::vector<Axis> axes = {
      Axis::String("mode", {"train"}),
      Axis::String("stage", {""}).OnCuda({"resnet50_stage2", "resnet50_stage3"}),
      Axis::Int("batch", {8}).OnCuda({256})};
  EXPECT_EQ(Names(ExpandCases(axes, false)), (std::vector<std::string>{"train_batch8"}));
  const auto cuda = ExpandCases(axes, true);
  EXPECT_EQ(Names(cuda), (std::vector<std::string>{"train_resnet50_stage2_batch256",
                                                   "train_resnet50_stage3_batch256"}));
  EXPECT_EQ(cuda[0].Int("batch"), 256);
  EXPECT_EQ(ExpandCases({}, false).size(), 1u);
  EXPECT_EQ(ExpandCases({}, false)[0].name(), "");
}

TEST(Axes, ReadingAnUndeclaredOrMistypedAxisNamesItAndTheCase) {
  const auto cases = ExpandCases({Axis::Int("n", {4})}, false);
  try {
    cases[0].String("n");
    FAIL() << "a string read of an int axis passed";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "case \"n4\" has no string axis \"n\"");
  }
  EXPECT_THROW(cases[0].Int("m"), std::invalid_argument);
}

TEST(Axes, BadDeclarationsAreRefused) {
  EXPECT_THROW(Axis::Int("n", {}), std::invalid_argument);
  EXPECT_THROW(Axis::Int("n", {1}).OnCuda(std::vector<std::string>{"x"}), std::invalid_argument);
  EXPECT_THROW(Axis::String("s", {"x"}).OnCuda({1}), std::invalid_argument);
  EXPECT_THROW(ExpandCases({Axis::Int("n", {1}), Axis::Int("n", {2})}, false),
               std::invalid_argument);
  // Two axes whose labels collide: "a" x "" and "" x "a" both name a case "a".
  EXPECT_THROW(ExpandCases({Axis::String("x", {"a", ""}), Axis::String("y", {"", "a"})}, false),
               std::invalid_argument);
}

class Noop : public Trick {
 public:
  Tensors Result() override { return {}; }
};

TEST(TrickDefAxes, CasesOnEachDeviceAndInstancesCarryTheirParameters) {
  TrickDef def("t", [] { return std::make_unique<Noop>(); });
  def.Axis(Axis::Int("n", {256, 1024}).OnCuda({4096}));
  const torch::Device cuda(torch::kCUDA, 0);
  EXPECT_EQ(def.cases(torch::kCPU), (std::vector<std::string>{"n256", "n1024"}));
  EXPECT_EQ(def.cases(cuda), (std::vector<std::string>{"n4096"}));
  EXPECT_EQ(def.cuda_cases(), (std::vector<std::string>{"n4096"}));
  const Instance i = def.NewInstance("n4096", cuda, "v");
  EXPECT_EQ(i.params.Int("n"), 4096);
  EXPECT_EQ(i.variant, "v");
  try {
    def.NewInstance("n4096", torch::kCPU, "v");
    FAIL() << "a CUDA case was made on the CPU";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "t: no case \"n4096\" on cpu");
  }
}

TEST(TrickDefAxes, TheShorthandIsOneStringAxisNamedCase) {
  TrickDef def("t", [] { return std::make_unique<Noop>(); });
  EXPECT_EQ(def.cases(torch::kCPU), (std::vector<std::string>{""}));
  def.CudaCases({"big"});
  EXPECT_EQ(def.cases(torch::kCPU), (std::vector<std::string>{""}));
  def.Cases({"a", "b"});
  EXPECT_EQ(def.cases(torch::kCPU), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(def.cases(torch::Device(torch::kCUDA, 0)), (std::vector<std::string>{"big"}));
  EXPECT_EQ(def.NewInstance("b", torch::kCPU, "v").params.String("case"), "b");
  EXPECT_THROW(def.Axis(Axis::Int("n", {1})), std::invalid_argument);
  TrickDef typed("u", [] { return std::make_unique<Noop>(); });
  typed.Axis(Axis::Int("n", {1}));
  EXPECT_THROW(typed.Cases({"a"}), std::invalid_argument);
  EXPECT_THROW(typed.Axis(Axis::Int("n", {2})), std::invalid_argument);  // names the trick
}

}  // namespace
}  // namespace trickbench
