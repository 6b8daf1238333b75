// The grading of SCHEMA.md section 5 on simulated runs: each claimed effect (time, memory,
// a rate, a cost, evidence counters) against what was measured, and the trick's verdict
// over every claimed effect. The merge of such runs is in merge_test.cc.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reports/analyze.h"
#include "reports/claims.h"
#include "reports/grade.h"
#include "reports/load.h"
#include "reports/report.h"
#include "reports/rounds_fixture.h"
#include "reports/test_util.h"
#include "stats/simulation.h"

namespace trickbench {
namespace reports {
namespace {

using testing::QuietScenario;
using testing::ScratchDir;
using testing::SimulatedTrick;
using testing::WriteSimulatedRun;

// The grading of SCHEMA.md section 5 on one simulated setting: what the claim says
// against what was measured, and the trick's verdict over every claimed effect.
struct Graded {
  Verdict setting, trick;
  std::vector<Grade> grades;
  std::string detail;
  std::vector<std::string> grade_details, measured;  // per grade
};
Graded GradeOne(const std::string& name, double speedup, std::vector<results::Expectation> claims,
                int64_t optimized_peak = 1024, std::map<std::string, double> baseline_counters = {},
                std::map<std::string, double> optimized_counters = {}) {
  SimulatedTrick t{"alpha", stats::Simulate(QuietScenario(4, speedup), 3)};
  t.expectations = std::move(claims);
  t.optimized_peak_bytes = optimized_peak;
  t.baseline_counters = std::move(baseline_counters);
  t.optimized_counters = std::move(optimized_counters);
  const Report r = MergeRun(WriteSimulatedRun(ScratchDir(name), {t}));
  const TrickReport& trick = r.tricks.at(0);
  Graded g{trick.effects.at(0).verdict, trick.verdict, {}, trick.verdict_detail};
  for (const ClaimGrade& c : trick.effects.at(0).grades) {
    g.grades.push_back(c.grade);
    g.grade_details.push_back(c.detail);
    g.measured.push_back(c.measured);
  }
  return g;
}

// A counter the trick's own code sets cannot fail: a claim on it is shown as evidence,
// never graded, so a failed time claim stays failed (it used to read "holds in part").
TEST(Grading, AnEvidenceCounterIsNeverGraded) {
  const results::Expectation time{.metric = "time"}, parameters{.metric = "parameters"};
  const Graded g = GradeOne("evidence", 1.0, {time, parameters}, 1024, {{"parameters", 100}},
                            {{"parameters", 50}});
  EXPECT_EQ(g.grades, (std::vector<Grade>{Grade::kNoEffect, Grade::kNotApplicable}));
  EXPECT_EQ(g.grade_details.at(1),
            "evidence, not a measurement: parameters is set by the trick's own code, so it is "
            "shown, not graded");
  EXPECT_EQ(g.trick, Verdict::kDoesNotHold) << g.detail;
  // The same counter, declared measured, is graded.
  const results::Expectation drift{.metric = "drift", .lowers = false, .measured_by = "max |diff|"};
  const Graded m = GradeOne("measured", 1.0, {drift}, 1024, {{"drift", 0}}, {{"drift", 0.5}});
  EXPECT_EQ(m.grades, std::vector<Grade>{Grade::kHolds});
  EXPECT_EQ(m.measured.at(0), "drift 0 -> 0.5 (max |diff|)");
}

// Where the processes' peaks differ, memory is an interval over them with the band rule,
// not process 1's point: a 5.3% saving in one process is not "holds" when others saw 1%.
TEST(Grading, MemoryThatVariesBetweenProcessesIsAnInterval) {
  SimulatedTrick t{"alpha", stats::Simulate(QuietScenario(4, 1.0), 3)};
  t.expectations = {results::Expectation{.metric = "memory"}};
  t.optimized_peak_by_process = {970, 1014, 1004, 996};  // -5.3%, -1.0%, -2.0%, -2.7%
  Report r = MergeRun(WriteSimulatedRun(ScratchDir("memory_spread"), {t}));
  const ClaimGrade& g = r.tricks.at(0).effects.at(0).grades.at(0);
  EXPECT_NE(g.grade, Grade::kHolds) << g.measured;
  EXPECT_NE(g.measured.find("the 4 processes' peaks differ: baseline / variant 1.03x ["),
            std::string::npos)
      << g.measured;
  // Every process saving about half: holds, as an interval.
  t.optimized_peak_by_process = {500, 512, 520, 505};
  r = MergeRun(WriteSimulatedRun(ScratchDir("memory_spread_holds"), {t}));
  EXPECT_EQ(r.tricks.at(0).effects.at(0).grades.at(0).grade, Grade::kHolds);
  // The same peak in every process: the exact figure, as before.
  t.optimized_peak_by_process = {512, 512, 512, 512};
  r = MergeRun(WriteSimulatedRun(ScratchDir("memory_same"), {t}));
  EXPECT_EQ(r.tricks.at(0).effects.at(0).grades.at(0).measured, "1.0 KiB -> 512 B (-50.0%)");
}

// A host-side memory claim reads the CPU meter on every device; what each claim says.
TEST(Grading, HostMemoryAndHowClaimsRead) {
  const results::Expectation host{.metric = "host_memory"};
  EXPECT_EQ(GradeOne("host", 1.0, {host}, /*optimized_peak=*/512).grades,
            std::vector<Grade>{Grade::kHolds});
  EXPECT_EQ(ClaimedText(host), "less peak host memory (beyond ±5%)");
  EXPECT_EQ(ClaimedText({.metric = "rate", .work = "flop_per_run"}),
            "lower flop_per_run per second (beyond ±5%)");
  EXPECT_EQ(ClaimedText({.metric = "time", .device = "none"}),
            "faster (beyond ±5%) (not covered here)");
}

// A rate (work per measured second) is the time's interval scaled by the work ratio: a
// variant with 64x fewer FLOP that is 8x faster achieves 8x fewer FLOP/s.
TEST(Grading, ARateIsGradedFromTheMeasuredTime) {
  const results::Expectation rate{.metric = "rate", .work = "flop_per_run"};
  const std::map<std::string, double> dense{{"flop_per_run", 64e6}}, thin{{"flop_per_run", 1e6}};
  Graded g = GradeOne("rate_holds", 8.0, {rate}, 1024, dense, thin);
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kHolds});
  EXPECT_EQ(g.measured.at(0).rfind("flop_per_run per second 8.00x [", 0), 0u) << g.measured.at(0);
  // 64x faster for 64x fewer FLOP: the same rate, no effect.
  g = GradeOne("rate_same", 64.0, {rate}, 1024, dense, thin);
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kNoEffect});
  // A claimed factor the measured rate does not reach.
  const results::Expectation far{.metric = "rate", .low = 20, .work = "flop_per_run"};
  g = GradeOne("rate_smaller", 8.0, {far}, 1024, dense, thin);
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kSmallerThanClaimed});
  // Without the work counter nothing is graded.
  g = GradeOne("rate_unknown", 8.0, {rate});
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kNotApplicable});
  EXPECT_EQ(g.grade_details.at(0), "counter flop_per_run not recorded for both variants");
}

TEST(Grading, ATrickHoldsOnlyWhenEveryClaimedEffectHolds) {
  const results::Expectation time{.metric = "time"}, memory{.metric = "memory"};
  Graded g = GradeOne("both_hold", 1.25, {time, memory}, /*optimized_peak=*/512);
  EXPECT_EQ(g.grades, (std::vector<Grade>{Grade::kHolds, Grade::kHolds}));
  EXPECT_EQ(g.trick, Verdict::kHolds);
  EXPECT_EQ(g.detail, "holds for all 2 claimed effects measured here (memory 1 of 1; time 1 of 1)");
  // Faster but holding as much memory: in part, never "holds".
  g = GradeOne("time_only", 1.25, {time, memory});
  EXPECT_EQ(g.grades, (std::vector<Grade>{Grade::kHolds, Grade::kNoEffect}));
  EXPECT_EQ(g.setting, Verdict::kPartly);
  EXPECT_EQ(g.trick, Verdict::kPartly);
  EXPECT_EQ(g.detail,
            "holds for 1 of 2 claimed effects measured here (memory 0 of 1; time 1 of 1)");
}

TEST(Grading, AFigureIsGradedNotJustTheDirection) {
  const results::Expectation claimed{.metric = "time", .low = 1.3, .high = 4};
  Graded g = GradeOne("below_range", 1.12, {claimed});
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kSmallerThanClaimed});
  EXPECT_EQ(g.trick, Verdict::kDoesNotHold);
  EXPECT_EQ(g.detail, "does not hold for the one claimed effect measured here");
  g = GradeOne("in_range", 1.6, {claimed});
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kHolds});
  g = GradeOne("opposite", 0.8, {claimed});
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kOpposite});
  g = GradeOne("no_effect", 1.0, {claimed});
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kNoEffect});
}

TEST(Grading, ACostHoldsWithinItsBoundAndAClaimForAnotherDeviceIsNotApplicable) {
  const results::Expectation cost{.metric = "time", .lowers = false, .high = 1.5};
  EXPECT_EQ(GradeOne("cost_ok", 1 / 1.2, {cost}).grades, std::vector<Grade>{Grade::kHolds});
  EXPECT_EQ(GradeOne("cost_high", 1 / 2.0, {cost}).grades,
            std::vector<Grade>{Grade::kLargerThanClaimed});
  const results::Expectation cuda{.metric = "time", .device = "cuda", .note = "tensor cores"};
  const Graded g = GradeOne("cuda", 1.25, {cuda});
  EXPECT_EQ(g.grades, std::vector<Grade>{Grade::kNotApplicable});
  EXPECT_EQ(g.trick, Verdict::kNotApplicable);
  EXPECT_EQ(g.detail, "no setting measured here is one the claim applies to");
  // A claim the experiment does not test on any device (claim::Effect::NotCovered).
  const results::Expectation none{.metric = "time", .device = "none", .note = "one GPU each"};
  const Graded n = GradeOne("none", 1.25, {none});
  EXPECT_EQ(n.grades, std::vector<Grade>{Grade::kNotApplicable});
  EXPECT_EQ(n.grade_details.at(0), "not covered by this experiment on any device: one GPU each");
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
