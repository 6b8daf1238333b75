#include "harness/runner.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trickbench {
namespace {

RunOptions Parse(const std::vector<std::string>& args, std::string* error) {
  RunOptions o;
  EXPECT_FALSE(ParseRunOptions(args, &o, error)) << "accepted: " << args.front();
  return o;
}

TEST(ParseRunOptions, Defaults) {
  RunOptions o;
  std::string error;
  ASSERT_TRUE(ParseRunOptions({}, &o, &error)) << error;
  EXPECT_EQ(o.repetitions, 9);
  EXPECT_EQ(o.min_time, 0.1);
  EXPECT_EQ(o.threads, 0);
  EXPECT_EQ(o.device, "auto");
  EXPECT_EQ(o.out, "");
}

TEST(ParseRunOptions, ReadsEveryFlag) {
  RunOptions o;
  std::string error;
  ASSERT_TRUE(ParseRunOptions({"--out=/tmp/x.json", "--threads=3", "--repetitions=15",
                               "--min_time=0.25", "--device=cpu", "--seed=42", "--check_only",
                               "--benchmark_filter=abc"},
                              &o, &error))
      << error;
  EXPECT_EQ(o.out, "/tmp/x.json");
  EXPECT_EQ(o.threads, 3);
  EXPECT_EQ(o.repetitions, 15);
  EXPECT_DOUBLE_EQ(o.min_time, 0.25);
  EXPECT_EQ(o.device, "cpu");
  EXPECT_EQ(o.seed, 42u);
  EXPECT_TRUE(o.check_only);
  EXPECT_EQ(o.benchmark_flags, std::vector<std::string>{"--benchmark_filter=abc"});
}

TEST(ParseRunOptions, RejectsMalformedValuesNamingTheFlag) {
  std::string e;
  Parse({"--threads=2.5"}, &e);
  EXPECT_EQ(e, "bad value for --threads: '2.5' (expected an integer from 1 to 1024)");
  Parse({"--threads"}, &e);
  EXPECT_EQ(e, "--threads needs a value (--threads=...)");
  Parse({"--repetitions=-3"}, &e);
  EXPECT_NE(e.find("--repetitions: '-3'"), std::string::npos);
  Parse({"--seed=99999999999999999999999"}, &e);
  EXPECT_NE(e.find("--seed"), std::string::npos);
  Parse({"--min_time=inf"}, &e);
  EXPECT_NE(e.find("--min_time: 'inf'"), std::string::npos);
  Parse({"--min_time=0"}, &e);
  EXPECT_NE(e.find("--min_time: '0'"), std::string::npos);
  Parse({"--device=gpu"}, &e);
  EXPECT_EQ(e, "bad value for --device: 'gpu' (expected auto, cpu or cuda)");
  Parse({"--benchmark_out=/tmp/y"}, &e);
  EXPECT_NE(e.find("set by the harness"), std::string::npos);
  Parse({"--fingerprint=1"}, &e);
  EXPECT_EQ(e, "--fingerprint takes no value");
  Parse({"-x"}, &e);
  EXPECT_NE(e.find("unexpected argument '-x'"), std::string::npos);
}

TEST(CompareResults, BitwiseNeedsSameDtypeAndBytes) {
  const Tolerance bitwise;
  auto a = torch::arange(10.0);
  EXPECT_TRUE(CompareResults({a}, {a.clone()}, bitwise).equal);
  auto b = a.clone();
  b[3] = std::nextafter(3.0f, 4.0f);
  const Comparison c = CompareResults({a}, {b}, bitwise);
  EXPECT_FALSE(c.equal);
  EXPECT_GT(c.max_abs_diff, 0);
  EXPECT_NE(c.detail.find("bitwise equality required"), std::string::npos) << c.detail;
  const Comparison d = CompareResults({a}, {a.to(torch::kDouble)}, bitwise);
  EXPECT_FALSE(d.equal);
  EXPECT_NE(d.detail.find("dtype Double vs baseline Float"), std::string::npos) << d.detail;
}

TEST(CompareResults, ToleranceIsAllcloseAndAcrossDtypes) {
  const Tolerance tol{1e-2, 1e-3};
  auto a = torch::linspace(1, 2, 100);
  EXPECT_TRUE(CompareResults({a}, {a.to(torch::kBFloat16)}, tol).equal);
  const Comparison far = CompareResults({a}, {a * 1.05}, tol);
  EXPECT_FALSE(far.equal);
  EXPECT_NEAR(far.max_rel_diff, 0.05, 1e-6);
}

TEST(CompareResults, ShapeCountAndNanMismatchesAreNamed) {
  const Tolerance tol{1e-3, 1e-3};
  auto a = torch::ones({2, 3});
  EXPECT_NE(CompareResults({a}, {torch::ones({3, 2})}, tol).detail.find("shape"), std::string::npos);
  EXPECT_NE(CompareResults({a}, {a, a}, tol).detail.find("2 tensors, baseline 1"), std::string::npos);
  auto n = a.clone();
  n[0][0] = NAN;
  EXPECT_FALSE(CompareResults({a}, {n}, tol).equal);
  EXPECT_TRUE(CompareResults({n}, {n.clone()}, tol).equal);  // NaN in the same place
  EXPECT_FALSE(CompareResults({a}, {torch::Tensor()}, tol).equal);
}

class Twice : public Trick {
 public:
  void SetUp(const Setting& s) override {
    x_ = torch::randn({5});
    variants_set_up().push_back(s.variant);
  }
  static std::vector<std::string>& variants_set_up() {
    static std::vector<std::string> v;
    return v;
  }
  void A() { y_ = x_ * 2; }
  void B() { y_ = x_ + x_; }
  Tensors Result() override { return {y_}; }

 private:
  torch::Tensor x_, y_;
};

TEST(Registry, FindsRegisteredTricksAndValidates) {
  TrickDef& def = internal::Register(std::make_unique<TrickDef>(
      "twice_for_test", [] { return std::unique_ptr<Trick>(new Twice()); }));
  EXPECT_EQ(ValidateDef(def), "twice_for_test: needs a baseline and at least one other variant");
  def.Variant("times_two", &Twice::A).Variant("plus_self", &Twice::B);
  EXPECT_EQ(ValidateDef(def), "twice_for_test: no Claim() from TRICKS.md");
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
  EXPECT_THROW(def.Tolerance(-1, 0), std::invalid_argument);
  EXPECT_THROW(def.CheckSteps(0), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench
