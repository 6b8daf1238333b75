// Loading, validation (every kind of bad input), merge, the report's JSON round trip,
// the command lines' exit codes, and a seeded fuzz run of the loaders.
#include "reports/report.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "reports/analyze.h"
#include "reports/cli.h"
#include "reports/load.h"
#include "reports/report_json.h"
#include "reports/rounds_fixture.h"
#include "reports/test_util.h"
#include "stats/simulation.h"

namespace trickbench {
namespace reports {
namespace {

using json = nlohmann::ordered_json;
using results::InputError;
using results::ParseJsonText;
using results::RunOutcome;
using testing::Fixture;
using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;
namespace fs = std::filesystem;

// A scratch copy of the fixture run, to change.
std::string CopyOfRun(const std::string& name) {
  const std::string dir = ScratchDir(name);
  for (const auto& e : fs::directory_iterator(Fixture("run"))) {
    fs::copy_file(e.path(), fs::path(dir) / e.path().filename());
  }
  return dir;
}

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

// ---------------------------------------------------------------- bad input

std::string AlphaText() { return Slurp(Fixture("run/alpha_fast.json")); }

// Loads `text` as a result file and returns the error (file and field checked).
InputError LoadError(const std::string& text) {
  try {
    const json j = ParseJsonText(text, "bad.json");
    KindOf(j, "bad.json");
    TrickFromResult(j, "bad.json", nullptr);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for: " << text.substr(0, 200);
  return InputError("", "", "");
}

std::string Mutated(const std::function<void(json&)>& change) {
  json j = json::parse(AlphaText());
  change(j);
  return j.dump();
}

TEST(BadInput, NotJson) {
  const InputError e = LoadError("this is not json");
  EXPECT_EQ(e.file(), "bad.json");
  EXPECT_NE(std::string(e.what()).find("not JSON"), std::string::npos) << e.what();
  EXPECT_NE(std::string(LoadError("").what()).find("empty"), std::string::npos);
}

TEST(BadInput, Truncated) {
  const std::string text = AlphaText();
  const InputError e = LoadError(text.substr(0, text.size() / 2));
  EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
}

TEST(BadInput, WrongSchemaVersion) {
  const InputError e = LoadError(Mutated([](json& j) { j["trickbench"]["schema_version"] = 99; }));
  EXPECT_EQ(e.field(), "trickbench.schema_version");
  EXPECT_NE(std::string(e.what()).find("wrong schema version 99"), std::string::npos);
}

TEST(BadInput, MissingField) {
  const InputError e = LoadError(Mutated([](json& j) { j["trickbench"].erase("claim"); }));
  EXPECT_EQ(e.field(), "trickbench.claim");
  EXPECT_EQ(std::string(e.what()), "bad.json: trickbench.claim: missing");
  EXPECT_EQ(LoadError(Mutated([](json& j) { j.erase("trickbench"); })).field(), "kind");
  EXPECT_EQ(LoadError(Mutated([](json& j) {
              j["trickbench"]["checks"][0]["variants"][1].erase("peak_bytes");
            })).field(),
            "trickbench.checks[0].variants[1].peak_bytes");
}

TEST(BadInput, WrongType) {
  const InputError e =
      LoadError(Mutated([](json& j) { j["trickbench"]["settings"]["threads"] = "two"; }));
  EXPECT_EQ(e.field(), "trickbench.settings.threads");
  EXPECT_NE(std::string(e.what()).find("expected an integer, got a string"), std::string::npos);
  EXPECT_EQ(LoadError(Mutated([](json& j) {
              j["trickbench"]["rounds"][0]["samples"]["ns_per_iteration"][0] = "fast";
            })).field(),
            "trickbench.rounds[0].samples.ns_per_iteration[0]");
}

TEST(BadInput, NanAndInfiniteAndNegativeTimes) {
  std::string text = Mutated(
      [](json& j) { j["trickbench"]["rounds"][0]["samples"]["ns_per_iteration"][0] = 12345.5; });
  const auto at = text.find("12345.5");
  ASSERT_NE(at, std::string::npos);
  std::string nan = text;
  nan.replace(at, 7, "NaN");
  InputError e = LoadError(nan);
  EXPECT_EQ(e.field(), "ns_per_iteration");
  EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  std::string inf = text;
  inf.replace(at, 7, "1e999");
  e = LoadError(inf);
  EXPECT_EQ(e.field(), "ns_per_iteration");
  EXPECT_NE(std::string(e.what()).find("not a finite number"), std::string::npos) << e.what();
  e = LoadError(Mutated(
      [](json& j) { j["trickbench"]["rounds"][0]["samples"]["ns_per_iteration"][3] = -1.0; }));
  EXPECT_EQ(e.field(), "trickbench.rounds[0].samples.ns_per_iteration[3]");
  EXPECT_NE(std::string(e.what()).find("not a positive time"), std::string::npos);
}

TEST(BadInput, NoRoundsOrChecksThatDoNotMatchTheVariants) {
  const InputError e = LoadError(Mutated([](json& j) { j["trickbench"].erase("rounds"); }));
  EXPECT_EQ(e.field(), "trickbench.rounds");
  EXPECT_NE(std::string(e.what()).find("expected one entry per case"), std::string::npos);
  // A check names the variant it pairs with; a mismatch is named too.
  const InputError f = LoadError(
      Mutated([](json& j) { j["trickbench"]["checks"][0]["variants"][1]["name"] = "nothing"; }));
  EXPECT_EQ(f.field(), "trickbench.checks[0].variants[1].name");
  // The Google Benchmark export, given where the record belongs, says which file to give.
  const InputError g = LoadError(R"({"context": {}, "benchmarks": []})");
  EXPECT_EQ(g.field(), "trickbench");
  EXPECT_NE(std::string(g.what()).find("gbench.json"), std::string::npos) << g.what();
}

TEST(BadInput, ReproducibilityFields) {
  // Not checked: the flags may be absent (older result files); checked: they must be there.
  const std::string ok = Mutated([](json& j) {
    j["trickbench"]["reproducibility"] = {{"checked", false}, {"detail", "needs CUDA"}};
  });
  const TrickReport t = TrickFromResult(ParseJsonText(ok, "r.json"), "r.json", nullptr);
  ASSERT_TRUE(t.reproducibility.has_value());
  EXPECT_FALSE(t.reproducibility->checked);
  EXPECT_EQ(LoadError(Mutated([](json& j) {
              j["trickbench"]["reproducibility"] = {{"checked", true}, {"detail", ""}};
            })).field(),
            "trickbench.reproducibility.bitwise_reproducible");
}

TEST(BadInput, PlainGoogleBenchmarkFileIsNamed) {
  const InputError e = LoadError(Mutated([](json& j) {
    j.erase("trickbench");
    j["benchmarks"] = json::array();
  }));
  EXPECT_EQ(e.field(), "trickbench");
  EXPECT_NE(std::string(e.what()).find("Google Benchmark file"), std::string::npos) << e.what();
  EXPECT_EQ(LoadError("[1, 2]").field(), "");
}

TEST(BadInput, IndexErrorsNameTheField) {
  const std::string dir = CopyOfRun("bad_index");
  json index = json::parse(Slurp(dir + "/index.json"));
  index["tricks"][2]["outcome"] = "exploded";
  Spit(dir + "/index.json", index.dump());
  try {
    MergeRun(dir);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "tricks[2].outcome");
    EXPECT_EQ(e.file(), dir + "/index.json");
  }
  index["tricks"][2]["outcome"] = "ok";
  index["tricks"][2]["result"] = "missing.json";
  Spit(dir + "/index.json", index.dump());
  try {
    MergeRun(dir);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir + "/missing.json");
    EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos);
  }
}

TEST(BadInput, RunWithoutTricksIsRefused) {
  const std::string dir = CopyOfRun("no_tricks");
  json index = json::parse(Slurp(dir + "/index.json"));
  index["tricks"] = json::array();
  Spit(dir + "/index.json", index.dump());
  try {
    MergeRun(dir);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/index.json: tricks: empty (no trick in this run)");
  }
}

// The command line: exit 2, one line naming file and field, no output file.
TEST(Cli, ReportOnBadInputWritesNothing) {
  const std::string dir = CopyOfRun("bad_run");
  json alpha = json::parse(Slurp(dir + "/alpha_fast.json"));
  alpha["trickbench"]["rounds"][0]["samples"]["ns_per_iteration"][0] = -3.0;
  Spit(dir + "/alpha_fast.json", alpha.dump());
  std::ostringstream out, err;
  EXPECT_EQ(ReportMain({dir}, out, err), 2);
  EXPECT_EQ(err.str(),
            "report: " + dir +
                "/alpha_fast.json: trickbench.rounds[0].samples.ns_per_iteration[0]: not a "
                "positive time (a ratio needs positive times)\n");
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    EXPECT_FALSE(fs::exists(dir + "/" + name)) << name;
  }
  std::ostringstream out2, err2;
  EXPECT_EQ(ReportMain({dir + "/nothere"}, out2, err2), 2);
  EXPECT_EQ(ReportMain({}, out2, err2), 2);
  EXPECT_EQ(ReportMain({"--bogus"}, out2, err2), 2);
}

TEST(Cli, ReportWritesThreeFiles) {
  const std::string out_dir = ScratchDir("good_run");
  std::ostringstream out, err;
  ASSERT_EQ(ReportMain({Fixture("run"), "--out_dir=" + out_dir}, out, err), 0) << err.str();
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    EXPECT_TRUE(fs::exists(out_dir + "/" + name)) << name;
    EXPECT_NE(out.str().find(out_dir + "/" + name), std::string::npos);
  }
  std::string kind;
  const Report back = LoadReportOrResult(out_dir + "/report.json", &kind);
  EXPECT_EQ(kind, "report");
  EXPECT_EQ(back.tricks.size(), 8u);
}

TEST(Cli, CompareRejectsBadInputAndMixedKinds) {
  const std::string dir = ScratchDir("compare_bad");
  std::ostringstream out, err;
  ASSERT_EQ(ReportMain({Fixture("run"), "--out_dir=" + dir}, out, err), 0);
  const std::string md = dir + "/cmp.md";
  std::ostringstream o1, e1;
  EXPECT_EQ(
      CompareMain({dir + "/report.json", Fixture("run/alpha_fast.json"), "--md=" + md}, o1, e1), 2);
  const std::string e1_text = e1.str();
  EXPECT_NE(e1_text.find("same kind"), std::string::npos) << e1_text;
  EXPECT_EQ(std::count(e1_text.begin(), e1_text.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(md));
  json r = json::parse(Slurp(dir + "/report.json"));
  r["schema_version"] = 99;
  Spit(dir + "/v99.json", r.dump());
  std::ostringstream o2, e2;
  EXPECT_EQ(CompareMain({dir + "/report.json", dir + "/v99.json", "--md=" + md}, o2, e2), 2);
  EXPECT_NE(e2.str().find("v99.json: schema_version: wrong schema version 99"), std::string::npos)
      << e2.str();
  EXPECT_FALSE(fs::exists(md));
  r = json::parse(Slurp(dir + "/report.json"));
  r["tricks"][0]["variants"][1]["samples_ns"][2] = -5;
  Spit(dir + "/neg.json", r.dump());
  std::ostringstream o3, e3;
  EXPECT_EQ(CompareMain({dir + "/report.json", dir + "/neg.json", "--md=" + md}, o3, e3), 2);
  EXPECT_NE(e3.str().find("tricks[0].variants[1].samples_ns[2]: negative time"), std::string::npos)
      << e3.str();
  EXPECT_FALSE(fs::exists(md));
  std::ostringstream o4, e4;
  EXPECT_EQ(CompareMain({dir + "/report.json"}, o4, e4), 2);
  EXPECT_EQ(
      CompareMain({dir + "/report.json", dir + "/report.json", "--fail_on_regression=x"}, o4, e4),
      2);
}

// Flags go through the shared parser (common/flags.h): one line naming the flag, exit 2.
TEST(Cli, FlagErrorsNameTheFlag) {
  const auto report = [](std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = ReportMain(args, out, err);
    return std::to_string(code) + " " + err.str() + out.str();
  };
  const auto compare = [](std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = CompareMain(args, out, err);
    return std::to_string(code) + " " + err.str() + out.str();
  };
  EXPECT_EQ(report({"--bogus"}), "2 report: unknown flag --bogus (see --help)\n");
  EXPECT_EQ(report({Fixture("run"), "--out_dir="}), "2 report: --out_dir is empty\n");
  EXPECT_EQ(report({Fixture("run"), Fixture("run_again")}),
            "2 report: one RUN_DIR expected, got another: " + Fixture("run_again") + "\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--fail_on_regression=x"}),
            "2 compare: bad value for --fail_on_regression: 'x' (expected a percentage >= 0)\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--fail_on_regression=-1"}),
            "2 compare: bad value for --fail_on_regression: '-1' (expected a percentage >= 0)\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--md"}), "2 compare: --md needs a value (--md=...)\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--md=x", "--md=y"}), "2 compare: --md is given twice\n");
  const std::string report_help = report({"--help"});
  EXPECT_EQ(report_help.rfind("0 usage: bazel run //reports:report", 0), 0u) << report_help;
  EXPECT_NE(report_help.find("  --out_dir=VALUE"), std::string::npos) << report_help;
  const std::string compare_help = compare({"--help"});
  EXPECT_NE(compare_help.find("  --fail_on_regression=PCT"), std::string::npos) << compare_help;
  EXPECT_NE(compare_help.find("  --html=VALUE"), std::string::npos) << compare_help;
}

// ---------------------------------------------------------------- fuzz

// Loads text the way compare does; anything but success or InputError fails the test.
void LoadAny(const std::string& text) {
  try {
    const json j = ParseJsonText(text, "fuzz.json");
    const std::string kind = KindOf(j, "fuzz.json");
    if (kind == "report") ReportFromJson(j, "fuzz.json");
    if (kind == "result") TrickFromResult(j, "fuzz.json", nullptr);
  } catch (const InputError&) {
  }
}

json RandomValue(std::mt19937_64& rng) {
  switch (rng() % 10) {
    case 0:
      return nullptr;
    case 1:
      return -1;
    case 2:
      return 0;
    case 3:
      return "x";
    case 4:
      return json::array();
    case 5:
      return json::object();
    case 6:
      return 1e308;
    case 7:
      return true;
    case 8:
      return static_cast<uint64_t>(-1);
    default:
      return -1e-300;
  }
}

// Replaces, deletes or retypes one randomly chosen node of the tree.
void MutateTree(json& j, std::mt19937_64& rng, int depth = 0) {
  if ((!j.is_object() && !j.is_array()) || j.empty() || (depth > 1 && rng() % 3 == 0)) {
    j = RandomValue(rng);
    return;
  }
  const size_t i = rng() % j.size();
  auto it = j.begin();
  std::advance(it, i);
  if (j.is_object() && rng() % 6 == 0) {
    j.erase(it);
    return;
  }
  MutateTree(*it, rng, depth + 1);
}

TEST(Fuzz, MutatedFilesNeverCrashTheLoader) {
  const std::string report_dir = ScratchDir("fuzz_seed");
  std::ostringstream out, err;
  ASSERT_EQ(ReportMain({Fixture("run"), "--out_dir=" + report_dir}, out, err), 0);
  std::vector<std::string> seeds = {Slurp(report_dir + "/report.json")};
  // A report and a result file with rounds over processes.
  stats::Scenario sc;
  sc.processes = 3;
  sc.rounds = 5;
  const std::string rounds_dir = testing::WriteSimulatedRun(
      ScratchDir("fuzz_rounds"), {{"alpha", stats::Simulate(sc, 1)}},
      results::AbSession{1, results::kAbOld, "/o", "/n", {"old", "new"}});
  ASSERT_EQ(ReportMain({rounds_dir}, out, err), 0) << err.str();
  seeds.push_back(Slurp(rounds_dir + "/report.json"));
  seeds.push_back(Slurp(rounds_dir + "/alpha.p1.json"));
  for (const char* f : {"run/alpha_fast.json", "run/epsilon_unsettled.json", "run/zeta_gpu.json",
                        "run/eta_invalid.json", "run/gamma_noeffect.json"}) {
    seeds.push_back(Slurp(Fixture(f)));
  }
  std::mt19937_64 rng(20260101);  // fixed: the same corpus every run
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  int cases = 0;
  static const char* kTokens[] = {"NaN", "-1",   "\"",    "{",       "}",    "[", "]",   ",",
                                  ":",   "null", "1e999", "\\u0000", "\xff", "0", "true"};
  while (cases < 20000 && std::chrono::steady_clock::now() < deadline) {
    const std::string& seed = seeds[rng() % seeds.size()];
    std::string text;
    if (rng() % 2 == 0) {  // structural: valid JSON with one node changed
      json j = json::parse(seed);
      for (int k = 1 + rng() % 3; k > 0; --k) MutateTree(j, rng);
      text = j.dump();
    } else {  // textual: flips, cuts, insertions
      text = seed;
      for (int k = 1 + rng() % 4; k > 0; --k) {
        const size_t at = rng() % (text.size() + 1);
        switch (rng() % 4) {
          case 0:
            if (at < text.size()) text[at] = static_cast<char>(rng() % 256);
            break;
          case 1:
            text = text.substr(0, at);
            break;
          case 2:
            text.insert(at, kTokens[rng() % (sizeof kTokens / sizeof *kTokens)]);
            break;
          default:
            text.erase(at, rng() % 64);
            break;
        }
      }
    }
    LoadAny(text);
    ++cases;
  }
  EXPECT_GT(cases, 500);  // the budget ran the loader on a real corpus
  std::cout << "fuzz: " << cases << " mutated files loaded without a crash\n";
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
