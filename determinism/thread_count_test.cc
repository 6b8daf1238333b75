#include "determinism/thread_count.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cmath>

namespace trickbench {
namespace {

TEST(ThreadCountCompareResults, ThreeVerdicts) {
  const auto x = torch::linspace(1, 2, 10);
  const ThreadTolerance tol{.rtol = 1e-5, .atol = 0};
  EXPECT_EQ(CompareResults({{"x", x}}, {{"x", x.clone()}}, tol).verdict,
            ThreadVerdict::kBitwiseEqual);

  auto ulp = x.clone();
  ulp[3] = std::nextafter(ulp[3].item<float>(), 10.f);
  const auto near = CompareResults({{"x", x}}, {{"x", ulp}}, tol);
  EXPECT_EQ(near.verdict, ThreadVerdict::kWithinTolerance);
  EXPECT_EQ(near.first_differing, "x");
  EXPECT_GT(near.max_abs_diff, 0);

  const auto far = CompareResults({{"x", x}}, {{"x", x + 1e-3}}, tol);
  EXPECT_EQ(far.verdict, ThreadVerdict::kDifferent);
  EXPECT_NE(far.Describe().find("different"), std::string::npos);
}

TEST(ThreadCountCompareResults, StructuralMismatchIsDifferent) {
  const ThreadTolerance tol;
  EXPECT_EQ(CompareResults({{"x", torch::ones({2})}}, {{"y", torch::ones({2})}}, tol).verdict,
            ThreadVerdict::kDifferent);
  EXPECT_EQ(CompareResults({{"x", torch::ones({2})}}, {{"x", torch::ones({3})}}, tol).verdict,
            ThreadVerdict::kDifferent);
  EXPECT_EQ(CompareResults({{"x", torch::ones({2})}}, {}, tol).verdict, ThreadVerdict::kDifferent);
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
  EXPECT_EQ(at::get_num_threads(), 1);
}

}  // namespace
}  // namespace trickbench
