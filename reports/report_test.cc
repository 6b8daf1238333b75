// A run folder merged into a report: the fixture run's verdicts, the report's JSON round
// trip, an interrupted run, non-finite and untimed results, and how claims are classified.
// Bad input and the fuzz run of the loaders are in load_test.cc; the command lines in
// report_cli_test.cc.
#include "reports/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "reports/analyze.h"
#include "reports/load.h"
#include "reports/report_json.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace {

using json = nlohmann::ordered_json;
using results::ParseJsonText;
using results::RunOutcome;
using testing::CopyOfRun;
using testing::Fixture;
using testing::Slurp;
using testing::Spit;

const TrickReport& Find(const Report& r, const std::string& id) {
  for (const auto& t : r.tricks) {
    if (t.id == id) return t;
  }
  throw std::runtime_error("no trick " + id);
}

TEST(Merge, FixtureRunGetsTheExpectedVerdicts) {
  const Report r = MergeRun(Fixture("run"));
  ASSERT_EQ(r.tricks.size(), 8u);
  EXPECT_EQ(r.source, "run");
  EXPECT_EQ(r.environment.at("torch_version"), "1.13.0");
  EXPECT_EQ(Find(r, "alpha_fast").verdict, Verdict::kHolds);
  EXPECT_NEAR(Find(r, "alpha_fast").effects[0].time.speedup, 2, 0.1);
  EXPECT_EQ(Find(r, "beta_memory").verdict, Verdict::kHolds);  // memory claim
  EXPECT_TRUE(Find(r, "beta_memory").claims_memory);
  EXPECT_FALSE(Find(r, "beta_memory").claims_time);
  EXPECT_EQ(Find(r, "gamma_noeffect").verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(Find(r, "gamma_noeffect").effects.size(), 2u);
  const TrickReport& noisy = Find(r, "delta_noisy");
  EXPECT_TRUE(noisy.imprecise);
  // About 3.2x [2.7x, 4x]: imprecise, but wholly beyond +5 %: faster is known, its size not.
  EXPECT_EQ(noisy.verdict, Verdict::kHolds);
  EXPECT_NE(
      noisy.effects[0].verdict_detail.find("faster (beyond ±5%): holds (in the claimed range"),
      std::string::npos)
      << noisy.effects[0].verdict_detail;
  EXPECT_TRUE(noisy.effects[0].time.imprecise);
  EXPECT_EQ(noisy.effects[0].time.method, "rounds");  // one process per trick in the fixtures
  const TrickReport& eps = Find(r, "epsilon_unsettled");
  // About 1.03x [1.00x, 1.05x]: precise, the estimate within +-5 %: no material effect.
  EXPECT_EQ(eps.verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(eps.effects[0].verdict, Verdict::kDoesNotHold);
  EXPECT_NE(eps.effects[0].verdict_detail.find("no effect (a precise interval around an estimate"),
            std::string::npos)
      << eps.effects[0].verdict_detail;
  EXPECT_FALSE(eps.effects[0].processes_to_settle.has_value());
  EXPECT_EQ(eps.effects[1].verdict, Verdict::kDoesNotHold);  // 1.2x slower
  EXPECT_EQ(Find(r, "zeta_gpu").verdict, Verdict::kNotApplicable);
  EXPECT_EQ(Find(r, "zeta_gpu").outcome, RunOutcome::kSkipped);
  EXPECT_EQ(Find(r, "eta_invalid").outcome, RunOutcome::kInvalid);
  EXPECT_FALSE(Find(r, "eta_invalid").variants[1].check.equivalent);
  EXPECT_EQ(Find(r, "theta_crashed").outcome, RunOutcome::kCrashed);
  EXPECT_TRUE(Find(r, "alpha_fast").reproducibility->bitwise_reproducible);
  EXPECT_FALSE(Find(r, "beta_memory").reproducibility->bitwise_reproducible);
  const ReportCounts n = Count(r);
  EXPECT_EQ(n.holds + n.does_not_hold + n.inconclusive + n.not_applicable, 8);
}

TEST(Merge, ReportJsonRoundTrips) {
  const Report r = MergeRun(Fixture("run"));
  const json j = ReportToJson(r);
  EXPECT_EQ(j["kind"], "trickbench-report");
  EXPECT_EQ(j["tricks"][0]["variants"][0]["samples_ns"].size(), 9u);
  const Report back = ReportFromJson(ParseJsonText(j.dump(), "r.json"), "r.json");
  EXPECT_EQ(ReportToJson(back).dump(), j.dump());
}

// Index version 2 (results/run_index.h): a run stopped by a signal.
TEST(Merge, InterruptedRunIsReportedAsSuch) {
  const std::string dir = CopyOfRun("interrupted");
  json index = json::parse(Slurp(dir + "/index.json"));
  index["schema_version"] = 2;
  index["complete"] = false;
  index["interrupted_by"] = "SIGINT";
  index["tricks"][1]["outcome"] = "interrupted";
  index["tricks"][1]["reason"] = "run_all was interrupted (SIGINT)";
  index["tricks"][1]["result"] = nullptr;
  Spit(dir + "/index.json", index.dump());
  const Report r = MergeRun(dir);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.tricks[1].outcome, RunOutcome::kInterrupted);
  EXPECT_EQ(r.tricks[1].verdict, Verdict::kNotApplicable);
  EXPECT_EQ(r.tricks[1].verdict_detail, "interrupted: run_all was interrupted (SIGINT)");
  const json j = ReportToJson(r);
  EXPECT_EQ(j["tricks"][1]["outcome"], "interrupted");
  EXPECT_EQ(ReportToJson(ReportFromJson(j, "r.json")).dump(), j.dump());
}

// A difference that was not finite (NaN against a number) is null in both files.
TEST(Merge, NonFiniteDifferenceSurvivesTheReport) {
  json eta = json::parse(Slurp(Fixture("run/eta_invalid.json")));
  eta["trickbench"]["checks"][0]["variants"][1]["max_abs_diff"] = nullptr;
  Report r;
  r.source = "eta";
  r.tricks.push_back(TrickFromResult(eta, "eta.json", nullptr));
  EXPECT_TRUE(std::isinf(r.tricks[0].variants[1].check.max_abs_diff));
  const json written = ParseJsonText(ReportToJson(r).dump(), "r.json");  // as in the file
  EXPECT_TRUE(written["tricks"][0]["variants"][1]["check"]["max_abs_diff"].is_null());
  const Report back = ReportFromJson(written, "r.json");
  EXPECT_TRUE(std::isinf(back.tricks[0].variants[1].check.max_abs_diff));
}

// --check_only writes status "checked" and no timings: ok, but nothing to judge time on.
TEST(Merge, CheckedResultIsOkButUntimed) {
  json alpha = json::parse(Slurp(Fixture("run/alpha_fast.json")));
  alpha["trickbench"]["status"] = "checked";
  alpha["trickbench"].erase("rounds");
  const TrickReport t = TrickFromResult(alpha, "alpha.json", nullptr);
  EXPECT_EQ(t.outcome, RunOutcome::kOk);
  ASSERT_EQ(t.effects.size(), 1u);
  EXPECT_FALSE(t.effects[0].timed);
  EXPECT_EQ(t.verdict, Verdict::kInconclusive);
  EXPECT_EQ(t.effects[0].verdict_detail, "faster (beyond ±5%): not settled (not timed)");
}

TEST(Claims, AreClassifiedAsDocumented) {
  bool time = false, memory = false;
  ClassifyClaim("less memory and time", &time, &memory);
  EXPECT_TRUE(time && memory);
  ClassifyClaim("saves memory", &time, &memory);
  EXPECT_TRUE(!time && memory);
  ClassifyClaim("no copy", &time, &memory);
  EXPECT_TRUE(time && !memory);
  ClassifyClaim("element-wise ops cost far more (memory access cost)", &time, &memory);
  EXPECT_TRUE(time && !memory);
  ClassifyClaim("memory O(n) -> O(sqrt n), small slowdown", &time, &memory);
  EXPECT_TRUE(!time && memory);
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
