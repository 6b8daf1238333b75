#include "results/result_file.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>

#include "results/test_files.h"

namespace trickbench {
namespace results {
namespace {

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d ? d : "/tmp";
}

ResultFile Read(const Json& j) {
  return ResultFile::FromJson(ParseJsonText(j.dump(), "r.json"), "r.json");
}

TEST(ResultFile, RoundTripsEveryField) {
  const Json j = testing::FullResult().ToJson();
  EXPECT_EQ(j["trickbench"]["schema_version"], kResultSchemaVersion);
  const ResultFile back = Read(j);
  EXPECT_EQ(back.ToJson().dump(), j.dump());
  EXPECT_EQ(back.trickbench.settings.backend["flush_l2"], true);
  EXPECT_EQ(back.trickbench.reproducibility->cases[2].error, "out of memory");
  EXPECT_EQ(back.trickbench.checks->at(1).variants[1].counters.at("cuda_peak_allocated_bytes"), 512);
}

TEST(ResultFile, KeepsTheFieldOrderOfTheWriters) {
  // Reports, compare.py and people read these files: the order is part of the format.
  const Json tb = testing::FullResult().ToJson()["trickbench"];
  std::vector<std::string> keys;
  for (const auto& [k, v] : tb.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "schema_version", "id", "category", "source", "claim", "expectations", "needs_cuda",
                      "status", "reason", "device", "baseline", "variants", "cases",
                      "reproduced_variant", "tolerance", "settings", "nvtx", "checks",
                      "reproducibility", "rounds"}));
  std::vector<std::string> settings;
  for (const auto& [k, v] : tb["settings"].items()) settings.push_back(k);
  EXPECT_EQ(settings, (std::vector<std::string>{"threads", "repetitions", "min_time", "seed",
                                                "check_steps", "random_interleaving", "timing",
                                                "rounds", "process", "plant", "flush_l2"}));
}

TEST(ResultFile, NonFiniteDiffsAndCountersSurviveAsNull) {
  // JSON has no infinity: a NaN-against-number difference is written as null and must
  // still read, or one wrong answer would make the whole run unreadable.
  const Json j = Json::parse(testing::FullResult().ToJson().dump());
  EXPECT_TRUE(j["trickbench"]["checks"][0]["variants"][1]["max_rel_diff"].is_null());
  const ResultFile back = Read(j);
  EXPECT_TRUE(std::isinf(back.trickbench.checks->at(0).variants[1].max_rel_diff));
  Json nan_counter = j;
  nan_counter["trickbench"]["checks"][0]["variants"][0]["counters"]["cv"] = nullptr;
  EXPECT_TRUE(std::isnan(Read(nan_counter).trickbench.checks->at(0).variants[0].counters.at("cv")));
}

TEST(ResultFile, SamplesAreTheIterationEntriesInNs) {
  const ResultFile r = testing::FullResult();
  const auto samples = SamplesNs(r.benchmarks, "r.json");
  ASSERT_EQ(samples.size(), 4u);
  EXPECT_EQ(samples.at("BM_demo/small/baseline"), (std::vector<double>{100e3, 101e3, 102e3}));
  Json with_error = r.benchmarks;
  with_error[0]["error_occurred"] = true;
  EXPECT_EQ(SamplesNs(with_error, "r.json").at("BM_demo/small/baseline").size(), 2u);
}

TEST(ResultFile, EnvironmentLeavesOutWhatDescribesOneRun) {
  ResultFile r = testing::FullResult();
  r.context["profiles"] = Json::array({"r.profile/a.trace.json"});  // --profile's traces
  const auto env = Environment(r);
  EXPECT_EQ(env, (std::map<std::string, std::string>{
                     {"num_cpus", "2"}, {"torch_version", "2.11.0"}, {"device", "cpu"}}));
}

TEST(ResultFile, WritesAtomicallyAndReadsBack) {
  const std::string path = TmpDir() + "/demo.json";
  std::string error;
  ASSERT_TRUE(WriteResultFile(path, testing::FullResult(), &error)) << error;
  EXPECT_EQ(ReadResultFile(path).ToJson(), testing::FullResult().ToJson());
  EXPECT_FALSE(WriteResultFile("/nonexistent-dir/demo.json", testing::FullResult(), &error));
  EXPECT_NE(error.find("/nonexistent-dir"), std::string::npos) << error;
}

// What the harness wrote before the fields marked optional in SCHEMA.md existed, and
// a reproducibility object without its flags when nothing was checked.
TEST(ResultFile, ReadsOlderFiles) {
  const Json old = Json::parse(R"({
    "context": {"torch_version": "1.13.0"},
    "benchmarks": [],
    "trickbench": {"schema_version": 1, "id": "old", "category": "c", "source": "s",
      "claim": "faster", "status": "skipped", "reason": "needs CUDA", "device": "cpu",
      "baseline": "a", "variants": ["a", "b"], "cases": [""], "reproduced_variant": "b",
      "tolerance": {"rtol": 0, "atol": 0, "bitwise": true},
      "settings": {"threads": 2, "repetitions": 9, "min_time": 0.1, "seed": 0},
      "reproducibility": {"checked": false, "detail": "needs CUDA"}}})");
  const ResultFile r = Read(old);
  EXPECT_EQ(r.trickbench.status, ResultStatus::kSkipped);
  EXPECT_EQ(r.trickbench.settings.timing, "");
  EXPECT_EQ(r.trickbench.settings.check_steps, 0);
  EXPECT_FALSE(r.trickbench.checks.has_value());
  ASSERT_TRUE(r.trickbench.reproducibility.has_value());
  EXPECT_FALSE(r.trickbench.reproducibility->checked);
  EXPECT_FALSE(r.trickbench.reproducibility->bitwise_reproducible);

  Json ok = testing::FullResult().ToJson();
  Json& tb = ok["trickbench"];
  for (const char* k : {"needs_cuda", "nvtx"}) tb.erase(k);
  for (const char* k :
       {"check_steps", "random_interleaving", "timing", "flush_l2", "rounds", "process", "plant"}) {
    tb["settings"].erase(k);
  }
  // A version 1 file has no rounds: its samples are the Google Benchmark repetitions.
  tb["schema_version"] = 1;
  tb.erase("rounds");
  for (auto& c : tb["checks"]) {
    for (auto& v : c["variants"]) {
      v.erase("setup_bytes");
      v.erase("counters");
    }
  }
  tb["reproducibility"].erase("variant");
  tb["reproducibility"].erase("cases");
  const ResultFile back = Read(ok);
  EXPECT_EQ(back.trickbench.checks->size(), 2u);
  EXPECT_TRUE(back.trickbench.settings.backend.empty());
  EXPECT_TRUE(back.trickbench.rounds.empty());
  EXPECT_EQ(back.trickbench.settings.rounds, 0);
  EXPECT_EQ(back.trickbench.settings.plant_factor, 1);
}

TEST(ResultFile, RoundsGiveThePairedLogRatios) {
  const ResultFile r = Read(testing::FullResult().ToJson());
  ASSERT_EQ(r.trickbench.rounds.size(), 2u);
  const CaseRounds& c = r.trickbench.rounds[1];
  EXPECT_EQ(c.case_name, "large");
  EXPECT_EQ(c.order_seed, 11u);
  EXPECT_EQ(c.iterations, (std::vector<int64_t>{10, 12}));
  // Round 1 ran the optimized variant first: pairing is by round, not by position.
  EXPECT_EQ(c.samples[2].variant, 1);
  const std::vector<double> ratios = c.LogRatios(1);
  ASSERT_EQ(ratios.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(ratios[k], std::log((100e3 + k) / (80e3 + k)));
  const auto optimized = c.Of(1);
  ASSERT_EQ(optimized.size(), 3u);
  EXPECT_EQ(optimized[1]->round, 1);
  EXPECT_EQ(optimized[1]->position, 0);
  EXPECT_EQ(r.trickbench.settings.plant_variant, "optimized");
  EXPECT_DOUBLE_EQ(r.trickbench.settings.plant_factor, 1.1);
  EXPECT_EQ(r.trickbench.settings.process, 2);
}

TEST(ResultFile, CheckedRunsHaveChecksButNoTimings) {
  ResultFile r = testing::FullResult();
  r.trickbench.status = ResultStatus::kChecked;
  r.trickbench.reason = "timing not run (--check_only)";
  r.benchmarks = Json::array();
  EXPECT_EQ(Read(r.ToJson()).trickbench.status, ResultStatus::kChecked);
  r.trickbench.checks.reset();
  try {
    Read(r.ToJson());
    FAIL() << "a checked result without checks was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "r.json: trickbench.checks: missing");
  }
}

struct Bad {
  std::function<void(Json&)> change;
  std::string message;  // the whole what()
};

TEST(ResultFile, RejectsBadInputNamingTheField) {
  const std::vector<Bad> cases = {
      {[](Json& j) { j = Json::array({1, 2}); }, "r.json: expected a JSON object, got an array"},
      {[](Json& j) { j.erase("trickbench"); },
       "r.json: trickbench: missing (a plain Google Benchmark file; trickbench needs the result "
       "file a trick binary writes)"},
      {[](Json& j) { j.erase("context"); }, "r.json: context: missing"},
      {[](Json& j) { j["benchmarks"] = Json::object(); },
       "r.json: benchmarks: expected an array, got an object"},
      {[](Json& j) { j["trickbench"]["schema_version"] = 3; },
       "r.json: trickbench.schema_version: wrong schema version 3 (this build reads versions 1 to 2)"},
      {[](Json& j) { j["trickbench"].erase("rounds"); },
       "r.json: trickbench.rounds: expected one entry per case (2), got 0"},
      {[](Json& j) { j["trickbench"]["rounds"][0]["iterations"] = {10}; },
       "r.json: trickbench.rounds[0].iterations: expected one count per variant (2), got 1"},
      {[](Json& j) { j["trickbench"]["rounds"][1]["samples"]["variant"][3] = 2; },
       "r.json: trickbench.rounds[1].samples.variant[3]: out of range: 2"},
      {[](Json& j) { j["trickbench"]["rounds"][0]["samples"]["ns_per_iteration"][0] = 0; },
       "r.json: trickbench.rounds[0].samples.ns_per_iteration[0]: not a positive time (a ratio "
       "needs positive times)"},
      {[](Json& j) { j["trickbench"]["rounds"][0]["samples"]["steal_seconds"].erase(0); },
       "r.json: trickbench.rounds[0].samples.steal_seconds: has 5 values, round has 6"},
      {[](Json& j) { j["trickbench"]["settings"]["plant"]["factor"] = 0.5; },
       "r.json: trickbench.settings.plant.factor: below 1 (a plant only slows)"},
      {[](Json& j) { j["trickbench"]["id"] = ""; }, "r.json: trickbench.id: empty"},
      {[](Json& j) { j["trickbench"].erase("claim"); }, "r.json: trickbench.claim: missing"},
      {[](Json& j) { j["trickbench"]["needs_cuda"] = "no"; },
       "r.json: trickbench.needs_cuda: expected a boolean, got a string"},
      {[](Json& j) { j["trickbench"]["status"] = "crashed"; },
       "r.json: trickbench.status: unknown status 'crashed'"},
      {[](Json& j) { j["trickbench"]["variants"] = {"baseline"}; },
       "r.json: trickbench.variants: needs a baseline and another variant"},
      {[](Json& j) { j["trickbench"]["baseline"] = "optimized"; },
       "r.json: trickbench.baseline: is not the first variant"},
      {[](Json& j) { j["trickbench"]["cases"] = {nullptr}; },
       "r.json: trickbench.cases[0]: expected a string, got null"},
      {[](Json& j) { j["trickbench"]["tolerance"]["rtol"] = "1e-5"; },
       "r.json: trickbench.tolerance.rtol: expected a number, got a string"},
      {[](Json& j) { j["trickbench"]["tolerance"]["bitwise"] = true; },  // rtol 1e-5 in it
       "r.json: trickbench.tolerance.bitwise: is true but rtol and atol are not both 0"},
      {[](Json& j) { j["trickbench"]["settings"]["threads"] = -1; },
       "r.json: trickbench.settings.threads: out of range: -1"},
      {[](Json& j) { j["trickbench"]["settings"]["repetitions"] = 1.5; },
       "r.json: trickbench.settings.repetitions: expected an integer, got a number"},
      {[](Json& j) { j["trickbench"]["settings"]["timing"] = 1; },
       "r.json: trickbench.settings.timing: expected a string, got a number"},
      {[](Json& j) { j["trickbench"]["nvtx"] = nullptr; },
       "r.json: trickbench.nvtx: expected a boolean, got null"},
      {[](Json& j) { j["trickbench"]["reproducibility"] = {{"checked", true}, {"detail", ""}}; },
       "r.json: trickbench.reproducibility.bitwise_reproducible: missing"},
      {[](Json& j) { j["trickbench"]["reproducibility"]["cases"][1]["first_difference"] = 3; },
       "r.json: trickbench.reproducibility.cases[1].first_difference: expected a string, got a number"},
      {[](Json& j) { j["benchmarks"][4]["real_time"] = -1.0; },
       "r.json: benchmarks[4].real_time: negative time -1.000"},
      {[](Json& j) { j["benchmarks"][0]["real_time"] = 0; },
       "r.json: benchmarks[0].real_time: zero time (a ratio needs positive times)"},
      {[](Json& j) { j["benchmarks"][0]["time_unit"] = "fortnight"; },
       "r.json: benchmarks[0].time_unit: unknown unit 'fortnight'"},
      {[](Json& j) { j["benchmarks"][0].erase("run_type"); }, "r.json: benchmarks[0].run_type: missing"},
      {[](Json& j) { j["benchmarks"] = Json::array(); },
       "r.json: benchmarks: empty benchmark list (status is ok, so there must be timings)"},
      {[](Json& j) {
         for (auto& b : j["benchmarks"]) b["run_type"] = "aggregate";
       },
       "r.json: benchmarks: no run_type \"iteration\" entry (no raw repetitions to analyse)"},
      {[](Json& j) { j["trickbench"]["checks"] = Json::array(); }, "r.json: trickbench.checks: empty"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"].erase(1); },
       "r.json: trickbench.checks[0].variants: needs a baseline and another variant"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"][1]["peak_bytes"] = "1"; },
       "r.json: trickbench.checks[0].variants[1].peak_bytes: expected an integer, got a string"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"][1]["allocations"] = -4; },
       "r.json: trickbench.checks[0].variants[1].allocations: out of range: -4"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"][1]["max_abs_diff"] = "0"; },
       "r.json: trickbench.checks[0].variants[1].max_abs_diff: expected a number or null, got a "
       "string"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"][1]["counters"]["x"] = "1"; },
       "r.json: trickbench.checks[0].variants[1].counters.x: expected a number or null, got a "
       "string"},
      {[](Json& j) { j["trickbench"]["checks"][1]["variants"][0]["benchmark"] = "BM_demo/small/baseline"; },
       "r.json: trickbench.checks[1].variants[0].benchmark: duplicate benchmark name "
       "BM_demo/small/baseline"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"][1]["benchmark"] = "BM_nothing"; },
       "r.json: trickbench.checks[0].variants[1].benchmark: no run_type \"iteration\" entry named "
       "BM_nothing in benchmarks"},
  };
  for (const Bad& c : cases) {
    Json j = testing::FullResult().ToJson();
    c.change(j);
    try {
      Read(j);
      ADD_FAILURE() << "accepted; expected: " << c.message;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
      EXPECT_EQ(e.file(), "r.json");
    }
  }
}

// Replaces, deletes or retypes nodes of a valid file: the reader must answer with an
// InputError or a result, never anything else (a crash, another exception type).
TEST(ResultFile, MutatedFilesNeverCrashTheReader) {
  const std::vector<Json> seeds = {testing::FullResult().ToJson(), testing::FullIndex().ToJson()};
  const std::vector<Json> values = {nullptr, -1, 0, "x", Json::array(), Json::object(), 1e308,
                                    true, static_cast<uint64_t>(-1), -1e-300};
  std::mt19937_64 rng(20260101);  // fixed: the same corpus every run
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int n = 0;
  for (; n < 20000 && std::chrono::steady_clock::now() < deadline; ++n) {
    Json j = seeds[rng() % seeds.size()];
    for (int k = 1 + rng() % 3; k > 0; --k) {
      Json* node = &j;
      for (int depth = 0; (node->is_object() || node->is_array()) && !node->empty(); ++depth) {
        if (depth > 1 && rng() % 3 == 0) break;
        auto it = node->begin();
        std::advance(it, rng() % node->size());
        if (node->is_object() && rng() % 6 == 0) {
          node->erase(it);
          node = nullptr;
          break;
        }
        node = &*it;
      }
      if (node) *node = values[rng() % values.size()];
    }
    try {
      if (j.is_object() && j.contains("kind")) {
        RunIndex::FromJson(j, "fuzz.json");
      } else {
        ResultFile::FromJson(j, "fuzz.json");
      }
    } catch (const InputError&) {
    }
  }
  EXPECT_GT(n, 500);
}

}  // namespace
}  // namespace results
}  // namespace trickbench
