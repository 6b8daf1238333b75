#include "stats/session_part.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <stdexcept>

#include "stats/simulation.h"

namespace trickbench {
namespace stats {
namespace {

TEST(WithSessionPart, AddsTheVarianceAndPoolsTheDegreesOfFreedom) {
  Speedup s;
  s.speedup = 1.2;
  s.log_se = 0.03;
  s.dof = 3;
  s.processes = 4;
  const Speedup w = WithSessionPart(s, 0.04, 11);
  EXPECT_DOUBLE_EQ(w.log_se, 0.05);
  // (v1 + v2)^2 / (v1^2 / 3 + v2^2 / 11) with v1 = 9e-4, v2 = 16e-4.
  EXPECT_NEAR(w.dof, 6.25e-6 / (8.1e-7 / 3 + 2.56e-6 / 11), 1e-9);
  EXPECT_DOUBLE_EQ(w.speedup, 1.2);
  EXPECT_EQ(w.processes, 4);
  EXPECT_GT(w.high / w.speedup - 1, 0.05 * 1.96);  // a t interval, wider than z
  EXPECT_NEAR(std::log(w.high) - std::log(1.2), std::log(1.2) - std::log(w.low), 1e-12);
  EXPECT_GT(w.p_value, 0);
  EXPECT_EQ(w.p_method, "t");
  // No part: the speedup as measured, bootstrap interval and sign-flip p included.
  s.method = "bootstrap";
  s.p_method = "sign_flip";
  const Speedup same = WithSessionPart(s, 0, 11);
  EXPECT_EQ(same.p_method, "sign_flip");
  EXPECT_DOUBLE_EQ(same.log_se, 0.03);
  // A part known exactly (no degrees of freedom) adds only the run's own.
  EXPECT_GT(WithSessionPart(s, 0.04, 0).dof, w.dof);
}

TEST(WithSessionPart, RejectsANegativeOrNonFinitePart) {
  const Speedup s;
  EXPECT_THROW(WithSessionPart(s, -0.01, 11), std::invalid_argument);
  EXPECT_THROW(WithSessionPart(s, std::nan(""), 11), std::invalid_argument);
  EXPECT_THROW(WithSessionPart(s, 0.01, 11, 1.0), std::invalid_argument);
}

// A/A pairs of sessions, each of whose processes share one draw of a session part
// (sd 0.03, beyond the 5 % min effect's reach at 2 draws a pair): what a compare of two
// runs on this machine meets. Bare, the intervals leave the part out and the test cries
// wolf far above alpha; with the part added to both sides (as compare --noise does) its
// false alarms stay at alpha.
TEST(WithSessionPart, AaFalseAlarmsStayAtAlphaWithTheSessionPartAdded) {
  constexpr double kPart = 0.03;
  Scenario sc;
  sc.processes = 4;
  std::mt19937_64 rng(77);
  std::normal_distribution<double> session(0, kPart);
  const auto run = [&](uint64_t seed) {
    std::vector<std::vector<double>> log_ratios = Simulate(sc, seed).LogRatios();
    const double shared = session(rng);
    for (auto& p : log_ratios) {
      for (double& x : p) x += shared;
    }
    return EstimateSpeedup(log_ratios);
  };
  const int n = 2000;
  int bare = 0, with_part = 0;
  for (int i = 0; i < n; ++i) {
    const Speedup a = run(300000 + 2 * i), b = run(300001 + 2 * i);
    bare += CompareSpeedups(a, b).p_value < 0.05;
    with_part +=
        CompareSpeedups(WithSessionPart(a, kPart, 11), WithSessionPart(b, kPart, 11)).p_value <
        0.05;
  }
  std::cout << "A/A p < 0.05 of " << n << ": bare " << bare << ", with the part " << with_part
            << "\n";
  EXPECT_GT(static_cast<double>(bare) / n, 0.15);  // the harm is real in this scenario
  // alpha + 3 Monte Carlo standard errors (sqrt(.05 * .95 / 2000) = 0.49 %).
  EXPECT_LE(static_cast<double>(with_part) / n, 0.05 + 3 * 0.0049);
}

}  // namespace
}  // namespace stats
}  // namespace trickbench
