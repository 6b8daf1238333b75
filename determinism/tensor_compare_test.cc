#include "determinism/tensor_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace trickbench {
namespace {

const TensorTolerance kBitwise;
const TensorTolerance kLoose{.rtol = 1e-2, .atol = 1e-3};

float NextUp(float v) { return std::nextafter(v, INFINITY); }

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CompareTensors, BitwiseEqualAndOneUlpApart) {
  const auto a = torch::arange(12, torch::kFloat).reshape({3, 4});
  const TensorComparison same = CompareTensors({{"a", a}}, {{"a", a.clone()}});
  EXPECT_TRUE(same.equal);
  EXPECT_TRUE(same.bitwise_equal);
  EXPECT_TRUE(same.differences.empty());
  EXPECT_EQ(same.Describe(), "bitwise equal");

  auto b = a.clone();
  b[1][2] = NextUp(6.f);
  const TensorComparison c = CompareTensors({{"a", a}}, {{"a", b}}, kBitwise);
  EXPECT_FALSE(c.equal);
  EXPECT_FALSE(c.bitwise_equal);
  ASSERT_EQ(c.differences.size(), 1u);
  const TensorDifference& d = c.differences[0];
  EXPECT_EQ(d.name, "a");
  EXPECT_EQ(d.what, "values");
  EXPECT_EQ(d.elements, 12);
  EXPECT_EQ(d.differing_elements, 1);
  EXPECT_EQ(d.outside_tolerance, 1);
  EXPECT_EQ(d.first_index, (std::vector<int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(d.max_abs_diff, NextUp(6.f) - 6.0);
  EXPECT_DOUBLE_EQ(c.max_abs_diff, d.max_abs_diff);
  EXPECT_NEAR(c.max_rel_diff, (NextUp(6.f) - 6.0) / 6.0, 1e-12);
  EXPECT_TRUE(Has(c.Describe("baseline"), "a: max |diff| ")) << c.Describe();
  EXPECT_TRUE(Has(c.Describe("baseline"), "1 of 12 elements differ, first at [1, 2]"))
      << c.Describe();
  EXPECT_TRUE(Has(c.Describe("baseline"), "(bitwise equality required)")) << c.Describe();
  // The same ulp is within a tolerance, but still not bitwise equal.
  const TensorComparison t = CompareTensors({{"a", a}}, {{"a", b}}, kLoose);
  EXPECT_TRUE(t.equal);
  EXPECT_FALSE(t.bitwise_equal);
  ASSERT_NE(t.FirstDifference(), nullptr);
  EXPECT_EQ(t.FirstMismatch(), nullptr);
  EXPECT_TRUE(t.differences[0].within_tolerance);
  EXPECT_TRUE(Has(t.Describe(), "equal within the tolerance (rtol 0.01, atol 0.001)"))
      << t.Describe();
}

TEST(CompareTensors, NegativeZeroDiffersOnlyBitwise) {
  const auto pos = torch::zeros({2});
  const auto neg = -torch::zeros({2});
  EXPECT_FALSE(CompareTensors({{"z", pos}}, {{"z", neg}}, kBitwise).equal);
  const TensorComparison t = CompareTensors({{"z", pos}}, {{"z", neg}}, kLoose);
  EXPECT_TRUE(t.equal);
  EXPECT_FALSE(t.bitwise_equal);
  EXPECT_EQ(t.differences[0].max_abs_diff, 0);
}

TEST(CompareTensors, NanEqualsNanInTheSamePlaceOnly) {
  auto a = torch::ones({4});
  a[1] = NAN;
  for (const TensorTolerance& tol : {kBitwise, kLoose}) {
    EXPECT_TRUE(CompareTensors({{"x", a}}, {{"x", a.clone()}}, tol).equal);
    // A NaN with another payload is still NaN in the same place.
    auto other = a.clone();
    uint32_t bits = 0x7fc00001;
    float payload;
    std::memcpy(&payload, &bits, sizeof payload);
    other[1] = payload;
    EXPECT_TRUE(CompareTensors({{"x", a}}, {{"x", other}}, tol).equal);
    // NaN against a number is a difference of infinite size.
    const TensorComparison c = CompareTensors({{"x", torch::ones({4})}}, {{"x", a}}, tol);
    EXPECT_FALSE(c.equal);
    EXPECT_EQ(c.max_abs_diff, INFINITY);
    EXPECT_EQ(c.differences[0].first_index, (std::vector<int64_t>{1}));
  }
}

TEST(CompareTensors, InfinitiesEqualThemselves) {
  const auto inf = torch::full({2}, INFINITY);
  EXPECT_TRUE(CompareTensors({{"x", inf}}, {{"x", inf.clone()}}, kLoose).equal);
  EXPECT_FALSE(CompareTensors({{"x", inf}}, {{"x", -inf}}, kLoose).equal);
  EXPECT_FALSE(CompareTensors({{"x", inf}}, {{"x", torch::ones({2})}}, kLoose).equal);
}

TEST(CompareTensors, ToleranceIsAllcloseRelativeToTheExpectedSide) {
  const auto a = torch::linspace(1, 2, 100);
  const TensorComparison far = CompareTensors({{"a", a}}, {{"a", a * 1.05}}, kLoose);
  EXPECT_FALSE(far.equal);
  EXPECT_NEAR(far.max_rel_diff, 0.05, 1e-6);
  EXPECT_EQ(far.differences[0].outside_tolerance, 100);
  EXPECT_TRUE(Has(far.Describe("baseline"), "(rtol 0.01, atol 0.001)")) << far.Describe();
  // Relative to the expected side, as torch.allclose(got, expected): |1.6 - 1| = 0.6 is
  // more than half of 1, and less than half of 1.6.
  const TensorTolerance half{.rtol = 0.5, .atol = 0};
  const auto one = torch::ones({3}, torch::kDouble);
  const auto y = torch::tensor({1.0, 1.0, 1.6}, torch::kDouble);
  EXPECT_TRUE(CompareTensors({{"x", y}}, {{"x", one}}, half).equal);
  const TensorComparison some = CompareTensors({{"x", one}}, {{"x", y}}, half);
  EXPECT_FALSE(some.equal);
  EXPECT_EQ(some.differences[0].outside_tolerance, 1);
  EXPECT_EQ(some.differences[0].first_index, (std::vector<int64_t>{2}));
}

TEST(CompareTensors, DtypeMismatchFailsBitwiseOnly) {
  const auto a = torch::linspace(1, 2, 100);
  const TensorComparison bf = CompareTensors({{"a", a}}, {{"a", a.to(torch::kBFloat16)}}, kLoose);
  EXPECT_TRUE(bf.equal);
  EXPECT_FALSE(bf.bitwise_equal);
  EXPECT_EQ(bf.differences[0].what, "dtype");
  EXPECT_GT(bf.differences[0].differing_elements, 0);  // bf16 rounds most of them
  const TensorComparison wide = CompareTensors({{"a", a}}, {{"a", a.to(torch::kDouble)}}, kBitwise);
  EXPECT_FALSE(wide.equal);  // the same values, but not the same bits
  EXPECT_EQ(wide.differences[0].differing_elements, 0);
  EXPECT_TRUE(Has(wide.Describe("baseline"),
                  "a: dtype Double vs baseline Float (bitwise equality required)"))
      << wide.Describe("baseline");
}

TEST(CompareTensors, StructuralMismatchesAreNamed) {
  const auto a = torch::ones({2, 3});
  auto describe = [](const TensorComparison& c) {
    EXPECT_FALSE(c.equal);
    EXPECT_FALSE(c.bitwise_equal);
    return c.Describe("baseline");
  };
  EXPECT_TRUE(Has(describe(CompareTensors({{"a", a}}, {{"a", a}, {"b", a}}, kLoose)),
                  "got 2 tensors, baseline 1"));
  EXPECT_TRUE(
      Has(describe(CompareTensors({{"a", a}}, {{"b", a}}, kLoose)), "a: name b vs baseline a"));
  EXPECT_TRUE(Has(describe(CompareTensors({{"a", a}}, {{"a", torch::ones({3, 2})}}, kLoose)),
                  "a: shape [3, 2] vs baseline [2, 3]"));
  EXPECT_TRUE(Has(describe(CompareTensors({{"a", a}}, {{"a", torch::Tensor()}}, kLoose)),
                  "a: undefined vs baseline defined"));
  EXPECT_TRUE(
      Has(describe(CompareTensors({{"a", a}}, {{"a", torch::empty({2, 3}, torch::kMeta)}}, kLoose)),
          "a: device meta vs baseline cpu"));
  // Undefined on both sides (a grad set to none in both runs) is the same state.
  EXPECT_TRUE(CompareTensors({{"g", torch::Tensor()}}, {{"g", torch::Tensor()}}).bitwise_equal);
}

TEST(CompareTensors, EveryTensorIsComparedAndTheFirstMismatchNamed) {
  const auto a = torch::ones({4});
  const NamedTensors expected = {{"p", a}, {"q", a}, {"r", a}, {"s", a}};
  const NamedTensors got = {{"p", a}, {"q", a + 1e-4}, {"r", a + 1}, {"s", a + 3}};
  const TensorComparison c = CompareTensors(expected, got, kLoose);
  EXPECT_FALSE(c.equal);
  ASSERT_EQ(c.differences.size(), 3u);
  EXPECT_EQ(c.FirstDifference()->name, "q");  // within the tolerance
  EXPECT_EQ(c.FirstMismatch()->name, "r");
  EXPECT_DOUBLE_EQ(c.max_abs_diff, 3);  // from s, after the first mismatch
  EXPECT_TRUE(Has(c.Describe(), "r: ")) << c.Describe();
}

TEST(CompareTensors, IntegerBoolComplexEmptyAndStridedTensors) {
  const auto i = torch::arange(5, torch::kLong);
  EXPECT_TRUE(CompareTensors({{"i", i}}, {{"i", i.clone()}}).bitwise_equal);
  const TensorComparison ci = CompareTensors({{"i", i}}, {{"i", i + 1}});
  EXPECT_EQ(ci.differences[0].differing_elements, 5);
  EXPECT_DOUBLE_EQ(ci.max_abs_diff, 1);
  const auto b = torch::tensor({true, false});
  EXPECT_FALSE(CompareTensors({{"b", b}}, {{"b", b.logical_not()}}).equal);
  const auto z = torch::complex(torch::ones({3}), torch::zeros({3}));
  EXPECT_TRUE(CompareTensors({{"z", z}}, {{"z", z.clone()}}).bitwise_equal);
  EXPECT_FALSE(CompareTensors({{"z", z}}, {{"z", z * 2}}).equal);
  EXPECT_TRUE(CompareTensors({{"e", torch::ones({0, 3})}}, {{"e", torch::ones({0, 3})}}).equal);
  const auto m = torch::arange(6, torch::kFloat).reshape({2, 3});
  EXPECT_TRUE(CompareTensors({{"t", m.t().contiguous()}}, {{"t", m.t()}}).bitwise_equal);
  auto s = torch::tensor(2.f);
  const TensorComparison scalar = CompareTensors({{"s", s}}, {{"s", s + 1}});
  EXPECT_TRUE(Has(scalar.Describe(), "1 of 1 elements differ, first at []")) << scalar.Describe();
}

TEST(CompareTensors, UnnamedTensorsAreNumbered) {
  const auto a = torch::ones({2});
  const TensorComparison c =
      CompareTensors(std::vector<torch::Tensor>{a, a}, std::vector<torch::Tensor>{a, a * 2});
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0].name, "result[1]");
  EXPECT_EQ(
      CompareTensors(std::vector<torch::Tensor>{a}, std::vector<torch::Tensor>{a * 2}, {}, "out")
          .differences[0]
          .name,
      "out[0]");
}

}  // namespace
}  // namespace trickbench
