#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include "determinism/fingerprint.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trickbench {
namespace {

TEST(Fingerprint, OneUlpInOneWeightChangesIt) {
  torch::manual_seed(1);
  torch::nn::Linear a(8, 4), b(8, 4);
  b->weight.data().copy_(a->weight.data());
  b->bias.data().copy_(a->bias.data());
  EXPECT_EQ(FingerprintModule(*a, false), FingerprintModule(*b, false));

  auto w = b->weight.data();
  float* p = w.data_ptr<float>() + 5;
  *p = std::nextafter(*p, INFINITY);
  const auto fa = FingerprintModule(*a, false), fb = FingerprintModule(*b, false);
  EXPECT_NE(fa, fb);
  EXPECT_NE(fa.Hex(), fb.Hex());
  EXPECT_EQ(FirstDifference(fa, fb).value_or(""), "weight");
}

TEST(Fingerprint, GradsCountOnlyWhenAsked) {
  torch::nn::Linear a(3, 2);
  const auto before = FingerprintModule(*a, true);
  a(torch::ones({1, 3})).sum().backward();
  EXPECT_EQ(FingerprintModule(*a, false), FingerprintModule(*a, false));
  const auto after = FingerprintModule(*a, true);
  EXPECT_NE(before, after);
  EXPECT_EQ(FirstDifference(before, after).value_or(""), "weight.grad");
}

TEST(Fingerprint, DtypeAndShapeMatter) {
  auto t = torch::zeros({4});
  EXPECT_NE(HashTensor(t), HashTensor(t.to(torch::kDouble)));
  EXPECT_NE(HashTensor(t), HashTensor(t.view({2, 2})));
  EXPECT_NE(HashTensor(t), HashTensor(torch::Tensor()));
  // Same values through a non-contiguous view hash the same as a contiguous copy.
  auto m = torch::arange(6.0).view({2, 3});
  EXPECT_EQ(HashTensor(m.t()), HashTensor(m.t().contiguous()));
}

TEST(Fingerprint, MissingTensorIsNamed) {
  auto a = FingerprintTensors({{"x", torch::ones({1})}, {"y", torch::ones({1})}});
  auto b = FingerprintTensors({{"x", torch::ones({1})}});
  EXPECT_EQ(FirstDifference(a, b).value_or(""), "y (only in the first)");
  EXPECT_FALSE(FirstDifference(a, a).has_value());
}

}  // namespace
}  // namespace trickbench
