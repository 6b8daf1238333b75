#include "harness/checks.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trickbench {
namespace {

// y = x * 2 or x + x: bitwise equal for floats; A/B/other variants differ on purpose.
class Twice : public Trick {
 public:
  void SetUp(const Instance& s) override {
    x_ = torch::randn({5});
    variants_set_up().push_back(s.variant);
  }
  static std::vector<std::string>& variants_set_up() {
    static std::vector<std::string> v;
    return v;
  }
  void A() { y_ = x_ * 2; }
  void B() { y_ = x_ + x_; }
  void OneUlpOff() { y_ = torch::nextafter(x_ * 2, torch::full_like(x_, INFINITY)); }
  void Double() { y_ = (x_ * 2).to(torch::kDouble); }
  void Nan() {
    y_ = x_ * 2;
    y_[0] = NAN;
  }
  void Throws() { throw std::runtime_error("boom\nbacktrace line"); }
  void Undefined() { y_ = torch::Tensor(); }
  Tensors Result() override { return {y_}; }

 private:
  torch::Tensor x_, y_;
};

std::unique_ptr<TrickDef> Def(const std::string& id) {
  auto def = std::make_unique<TrickDef>(id, [] { return std::unique_ptr<Trick>(new Twice()); });
  def->Claim("x*2 == x+x").Category("test").Source("test");
  return def;
}

TEST(Registry, FindsRegisteredTricksAndValidates) {
  TrickDef& def = internal::Register(std::make_unique<TrickDef>(
      "twice_for_test", [] { return std::unique_ptr<Trick>(new Twice()); }));
  EXPECT_EQ(ValidateDef(def), "twice_for_test: needs a baseline and at least one other variant");
  def.Variant("times_two", &Twice::A).Variant("plus_self", &Twice::B);
  EXPECT_EQ(ValidateDef(def), "twice_for_test: no Claim() (the article's claim)");
  def.Claim("x*2 == x+x").Category("test").Source("test");
  EXPECT_EQ(ValidateDef(def), "");
  EXPECT_EQ(FindTrick("twice_for_test"), &def);
  EXPECT_EQ(FindTrick("no_such_trick"), nullptr);
  EXPECT_EQ(def.reproduced_variant(), "plus_self");
  EXPECT_THROW(def.Variant("plus_self", &Twice::B), std::invalid_argument);
  def.Reproduce("nope");
  EXPECT_NE(ValidateDef(def).find("unknown variant nope"), std::string::npos);
  def.Reproduce("times_two");

  Twice::variants_set_up().clear();
  const CheckReport r = RunChecks(def, torch::kCPU, 0);
  EXPECT_TRUE(r.ok) << r.reason;
  // Each instance is told which variant it will run.
  EXPECT_EQ(Twice::variants_set_up(), (std::vector<std::string>{"times_two", "plus_self"}));
  EXPECT_EQ(ReproduceFingerprint(def, "", torch::kCPU, 5),
            ReproduceFingerprint(def, "", torch::kCPU, 5));
  EXPECT_NE(ReproduceFingerprint(def, "", torch::kCPU, 5),
            ReproduceFingerprint(def, "", torch::kCPU, 6));
}

TEST(TrickDef, RejectsBadSettings) {
  TrickDef def("bad", [] { return std::unique_ptr<Trick>(new Twice()); });
  EXPECT_THROW(def.Cases({}), std::invalid_argument);
  EXPECT_THROW(def.CudaCases({}), std::invalid_argument);
  EXPECT_THROW(def.Tolerance(-1, 0), std::invalid_argument);
  EXPECT_THROW(def.CheckSteps(0), std::invalid_argument);
}

// A grade must come from a measurement: a counter the trick's own code sets (parameters,
// calls, FLOP from shapes) cannot fail, so a claim on it is refused; a counter graded
// says how it is measured, and a rate names the work it is a rate of.
TEST(TrickDef, GradesOnlyMeasurements) {
  EXPECT_THROW(claim::Fewer("parameters", ""), std::invalid_argument);
  EXPECT_THROW(claim::More("time", "timed"), std::invalid_argument);
  EXPECT_THROW(claim::LowerRate(""), std::invalid_argument);
  // A host-side memory claim is graded on the CPU meter everywhere; only memory has one.
  EXPECT_EQ(claim::LessMemory().OnHost().expectation().metric, "host_memory");
  EXPECT_THROW(claim::Faster().OnHost(), std::invalid_argument);
  const results::Expectation rate = claim::LowerRate("flop_per_run", 4).expectation();
  EXPECT_EQ(rate.metric, "rate");
  EXPECT_EQ(rate.work, "flop_per_run");
  EXPECT_EQ(rate.low, 4);

  auto def = Def("evidence");
  def->Variant("a", &Twice::A).Variant("b", &Twice::B);
  EXPECT_EQ(ValidateDef(*def), "");
  // An expectation on an evidence counter, as a result file from elsewhere could carry.
  def->Expect(claim::Effect(results::Expectation{.metric = "parameters"}));
  EXPECT_EQ(ValidateDef(*def),
            "evidence: Expect() grades counter parameters, which it does not say how it "
            "measures: a counter the trick's own code or shapes set is evidence, shown but "
            "never graded");
  auto measured = Def("measured");
  measured->Variant("a", &Twice::A).Variant("b", &Twice::B);
  measured->Expect(claim::More("drift", "max |difference| of the results"));
  EXPECT_EQ(ValidateDef(*measured), "");
  measured->Expect(claim::Effect(results::Expectation{.metric = "rate"}));
  EXPECT_EQ(ValidateDef(*measured),
            "measured: Expect() grades a rate without the counter of work it is a rate of");
}

TEST(RunChecks, RecordsMemoryAndEquivalence) {
  auto def = Def("equal");
  def->Variant("a", &Twice::A).Variant("b", &Twice::B).Cases({"one", "two"});
  const CheckReport r = RunChecks(*def, torch::kCPU, 0);
  ASSERT_TRUE(r.ok) << r.reason;
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[1].case_name, "two");
  for (const auto& cc : r.cases) {
    ASSERT_EQ(cc.variants.size(), 2u);
    for (const auto& vc : cc.variants) {
      EXPECT_TRUE(vc.equivalent);
      EXPECT_TRUE(vc.active);
      EXPECT_EQ(vc.inactive_reason, "");
      EXPECT_GT(vc.peak_bytes, 0) << "the CPU meter saw no allocation of " << vc.name;
      EXPECT_GT(vc.allocations, 0);
    }
  }
}

// A later process of a run meters memory as process 1 does, and leaves equivalence and
// "in effect" to it: a variant that computes something else is not its to catch.
TEST(RunChecks, MemoryOnlyMetersTheSameAndSaysWhoChecked) {
  auto def = Def("memory_only");
  def->Variant("a", &Twice::A).Variant("off", &Twice::OneUlpOff);
  const CheckReport full = RunChecks(*def, torch::kCPU, 0);
  EXPECT_FALSE(full.ok);
  const CheckReport memory =
      RunChecks(*def, torch::kCPU, 0, nullptr, Mutation::kNone, CheckScope::kMemoryOnly);
  ASSERT_TRUE(memory.ok) << memory.reason;
  for (size_t v = 0; v < 2; ++v) {
    const results::VariantCheck& m = memory.cases[0].variants[v];
    EXPECT_TRUE(m.equivalent);
    EXPECT_TRUE(m.active);
    EXPECT_EQ(m.equivalence_detail, kCheckedByProcess1);
    EXPECT_EQ(m.peak_bytes, full.cases[0].variants[v].peak_bytes) << m.name;
    EXPECT_EQ(m.setup_bytes, full.cases[0].variants[v].setup_bytes) << m.name;
    EXPECT_TRUE(m.counters.empty()) << "trick counters are process 1's";
  }
}

TEST(RunChecks, OneUlpFailsABitwiseTrickAndNamesWhere) {
  auto def = Def("ulp");
  def->Variant("a", &Twice::A).Variant("off", &Twice::OneUlpOff).Cases({"c"});
  const CheckReport r = RunChecks(*def, torch::kCPU, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason.rfind("c/off differs from a: ", 0), 0u) << r.reason;
  const results::VariantCheck& e = r.cases[0].variants[1];
  EXPECT_EQ(e.name, "off");
  EXPECT_FALSE(e.equivalent);
  EXPECT_GT(e.max_abs_diff, 0);
  EXPECT_NE(e.equivalence_detail, "");
  // Within a tolerance the same ulp passes.
  def->Tolerance(1e-5, 1e-6);
  EXPECT_TRUE(RunChecks(*def, torch::kCPU, 0).ok);
}

TEST(RunChecks, DtypeMattersBitwiseNotWithinATolerance) {
  auto def = Def("dtype");
  def->Variant("a", &Twice::A).Variant("double", &Twice::Double);
  EXPECT_FALSE(RunChecks(*def, torch::kCPU, 0).ok);
  def->Tolerance(1e-6, 1e-7);
  EXPECT_TRUE(RunChecks(*def, torch::kCPU, 0).ok);
}

TEST(RunChecks, NanAgainstANumberIsADifference) {
  auto def = Def("nan");
  def->Variant("a", &Twice::A).Variant("nan", &Twice::Nan).Tolerance(1e-3, 1e-3);
  const CheckReport r = RunChecks(*def, torch::kCPU, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(std::isinf(r.cases[0].variants[1].max_abs_diff));
}

TEST(RunChecks, AMissingResultIsNamed) {
  auto def = Def("undefined");
  def->Variant("a", &Twice::A).Variant("none", &Twice::Undefined);
  const CheckReport r = RunChecks(*def, torch::kCPU, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason.rfind("none differs from a: result[0]: undefined vs baseline defined", 0), 0u)
      << r.reason;
}

TEST(RunChecks, AThrowingVariantFailsWithTheFirstLineOfItsMessage) {
  auto def = Def("throws");
  def->Variant("a", &Twice::A).Variant("bad", &Twice::Throws);
  const CheckReport r = RunChecks(*def, torch::kCPU, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "bad threw: boom");
}

TEST(TrickDef, CudaCasesReplaceTheCasesOnCudaOnly) {
  auto def = Def("sized");
  def->Variant("a", &Twice::A).Variant("b", &Twice::B).Cases({"small"});
  EXPECT_EQ(def->cases(torch::Device(torch::kCUDA, 0)), (std::vector<std::string>{"small"}));
  def->CudaCases({"resnet50_stage2", "resnet50_stage3"});
  EXPECT_EQ(def->cases(torch::kCPU), (std::vector<std::string>{"small"}));
  EXPECT_EQ(def->cases(torch::Device(torch::kCUDA, 0)),
            (std::vector<std::string>{"resnet50_stage2", "resnet50_stage3"}));
  // A claim may name a case of either device; one of neither is a typo.
  def->Expect(claim::Faster().ForCase("resnet50_stage3"));
  EXPECT_EQ(ValidateDef(*def), "");
  def->Expect(claim::Faster().ForCase("resnet50_stage9"));
  EXPECT_EQ(ValidateDef(*def), "sized: Expect() names unknown case resnet50_stage9");
  const CheckReport r = RunChecks(*def, torch::kCPU, 0);
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases[0].case_name, "small");
}

// Inactive() from the ops the body dispatched: the evidence the mutation test needs.
class AddsOrMultiplies : public Trick {
 public:
  void SetUp(const Instance&) override { x_ = torch::randn({5}); }
  void Multiply() { y_ = x_ * x_; }
  void Add() { y_ = x_ + x_; }
  Tensors Result() override { return {y_}; }
  std::string Inactive(const std::string& variant) override {
    seen_.push_back(OpsRun("aten::add"));
    if (variant == "add" && OpsRun("aten::add") != 1) return "no aten::add in the last run";
    return "";
  }
  static std::vector<int64_t> seen_;

 private:
  torch::Tensor x_, y_;
};
std::vector<int64_t> AddsOrMultiplies::seen_;

TEST(RunChecks, HandsTheLastRunsOpsToTheTrick) {
  TrickDef def("ops", [] { return std::unique_ptr<Trick>(new AddsOrMultiplies()); });
  def.Claim("c").Category("test").Source("test").Tolerance(10, 10);
  def.Variant("multiply", &AddsOrMultiplies::Multiply).Variant("add", &AddsOrMultiplies::Add);
  AddsOrMultiplies::seen_.clear();
  EXPECT_TRUE(RunChecks(def, torch::kCPU, 0).ok);
  // The count of the last of the CheckSteps() runs, not their sum.
  EXPECT_EQ(AddsOrMultiplies::seen_, (std::vector<int64_t>{0, 1}));
  const CheckReport mutated = RunChecks(def, torch::kCPU, 0, nullptr, Mutation::kBaselineBody);
  EXPECT_FALSE(mutated.ok);
  EXPECT_EQ(mutated.reason, "add not in effect: no aten::add in the last run");
  AddsOrMultiplies fresh;
  EXPECT_EQ(fresh.OpsRun("aten::add"), 0);  // outside the checks
}

TEST(CheckReproducibility, RecordsEveryCase) {
  auto def = Def("repro");
  def->Variant("a", &Twice::A).Variant("b", &Twice::B).Cases({"x", "y"});
  const results::Reproducibility r = CheckReproducibility(*def, torch::kCPU, 3);
  EXPECT_TRUE(r.checked);
  EXPECT_EQ(r.variant, "b");
  EXPECT_TRUE(r.bitwise_reproducible);
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[1].case_name, "y");
  EXPECT_EQ(r.fingerprint, r.cases[0].fingerprint);
  EXPECT_EQ(r.fingerprint, ReproduceFingerprint(*def, "x", torch::kCPU, 3).Hex());

  auto bad = Def("repro_throws");
  bad->Variant("a", &Twice::A).Variant("bad", &Twice::Throws).Cases({"x"});
  const results::Reproducibility t = CheckReproducibility(*bad, torch::kCPU, 3);
  EXPECT_FALSE(t.bitwise_reproducible);
  EXPECT_EQ(t.cases[0].error, "boom");
  EXPECT_EQ(t.detail, "x: boom");
  EXPECT_EQ(NotChecked("why").detail, "why");
  EXPECT_FALSE(NotChecked("why").checked);
}

}  // namespace
}  // namespace trickbench
