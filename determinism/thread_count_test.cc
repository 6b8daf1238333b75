#include "determinism/thread_count.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cmath>

namespace trickbench {
namespace {

TEST(ThreadVerdict, ThreeVerdicts) {
  const auto x = torch::linspace(1, 2, 10);
  const TensorTolerance tol{.rtol = 1e-5, .atol = 0};
  EXPECT_EQ(VerdictOf(CompareTensors({{"x", x}}, {{"x", x.clone()}}, tol)),
            ThreadVerdict::kBitwiseEqual);

  auto ulp = x.clone();
  ulp[3] = std::nextafter(ulp[3].item<float>(), 10.f);
  const auto near = CompareTensors({{"x", x}}, {{"x", ulp}}, tol);
  EXPECT_EQ(VerdictOf(near), ThreadVerdict::kWithinTolerance);
  EXPECT_EQ(near.FirstDifference()->name, "x");
  EXPECT_GT(near.max_abs_diff, 0);

  EXPECT_EQ(VerdictOf(CompareTensors({{"x", x}}, {{"x", x + 1e-3}}, tol)),
            ThreadVerdict::kDifferent);
}

TEST(ThreadVerdict, StructuralMismatchIsDifferent) {
  const TensorTolerance tol{.rtol = 1e-5, .atol = 1e-7};
  EXPECT_EQ(VerdictOf(CompareTensors({{"x", torch::ones({2})}}, {{"y", torch::ones({2})}}, tol)),
            ThreadVerdict::kDifferent);
  EXPECT_EQ(VerdictOf(CompareTensors({{"x", torch::ones({2})}}, {{"x", torch::ones({3})}}, tol)),
            ThreadVerdict::kDifferent);
  EXPECT_EQ(VerdictOf(CompareTensors({{"x", torch::ones({2})}}, {}, tol)),
            ThreadVerdict::kDifferent);
}

TEST(CompareThreadCounts, RunsEachCountAndRestoresIt) {
  at::set_num_threads(1);
  std::vector<int> seen;
  const auto c = CompareThreadCounts(
      [&] {
        seen.push_back(at::get_num_threads());
        return NamedTensors{{"n", torch::tensor(static_cast<float>(at::get_num_threads()))}};
      },
      {}, 1, 2);
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(c.verdict, ThreadVerdict::kDifferent) << "a result that depends on the count";
  EXPECT_NE(c.Describe().find("1 vs 2 threads: different (n: max |diff| 1"), std::string::npos)
      << c.Describe();
  EXPECT_EQ(at::get_num_threads(), 1);
}

}  // namespace
}  // namespace trickbench
