#include "results/result_file.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <random>

#include "common/test_files.h"
#include "results/full_examples.h"

namespace trickbench {
namespace results {
namespace {

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
  EXPECT_EQ(back.trickbench.checks->at(1).variants[1].counters.at("cuda_peak_allocated_bytes"),
            512);
}

TEST(ResultFile, KeepsTheFieldOrderOfTheWriters) {
  // Reports, compare.py and people read these files: the order is part of the format.
  const Json tb = testing::FullResult().ToJson()["trickbench"];
  std::vector<std::string> keys;
  for (const auto& [k, v] : tb.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"schema_version",
                                            "id",
                                            "category",
                                            "source",
                                            "claim",
                                            "expectations",
                                            "needs_cuda",
                                            "status",
                                            "reason",
                                            "device",
                                            "baseline",
                                            "variants",
                                            "cases",
                                            "reproduced_variant",
                                            "tolerance",
                                            "settings",
                                            "nvtx",
                                            "checks",
                                            "checks_memory_only",
                                            "reproducibility",
                                            "phase_seconds",
                                            "rounds"}));
  std::vector<std::string> settings;
  for (const auto& [k, v] : tb["settings"].items()) settings.push_back(k);
  EXPECT_EQ(settings, (std::vector<std::string>{"threads", "min_time", "seed", "check_steps",
                                                "timing", "rounds", "process", "plant",
                                                "iterations_from", "flush_l2"}));
  // The samples are the rounds: no Google Benchmark entries in the record.
  std::vector<std::string> top;
  const Json whole = testing::FullResult().ToJson();
  for (const auto& [k, v] : whole.items()) top.push_back(k);
  EXPECT_EQ(top, (std::vector<std::string>{"context", "trickbench"}));
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

TEST(ResultFile, EnvironmentLeavesOutWhatDescribesOneRun) {
  ResultFile r = testing::FullResult();
  r.context["profiles"] = Json::array({"r.profile/a.trace.json"});  // --profile's traces
  r.context["host_name"] = "box";
  const auto env = Environment(r);
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"num_cpus", "2"},
                                                     {"torch_version", "2.11.0"},
                                                     {"device", "cpu"},
                                                     {"host_name", "box"}}));
  EXPECT_EQ(KindOfContextKey("date"), ContextKind::kRun);
  EXPECT_EQ(KindOfContextKey("host_name"), ContextKind::kHost);
  EXPECT_EQ(KindOfContextKey("mhz_per_cpu"), ContextKind::kHost);
  EXPECT_EQ(KindOfContextKey("blas"), ContextKind::kEnvironment);
}

TEST(ResultFile, WritesAtomicallyAndReadsBack) {
  const std::string path = test_files::TmpDir() + "/demo.json";
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
    "trickbench": {"schema_version": 2, "id": "old", "category": "c", "source": "s",
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
  for (const char* k : {"needs_cuda", "nvtx", "phase_seconds", "checks_memory_only"}) tb.erase(k);
  for (auto& c : tb["rounds"]) c["samples"].erase("probe_ns");
  for (const char* k : {"check_steps", "random_interleaving", "timing", "flush_l2", "rounds",
                        "process", "plant", "iterations_from"}) {
    tb["settings"].erase(k);
  }
  // A version 2 file: its Google Benchmark entries, checks[].benchmark and the settings
  // nothing read are there, and ignored; the rounds are its samples.
  tb["schema_version"] = 2;
  tb["settings"]["repetitions"] = 3;
  tb["settings"]["random_interleaving"] = true;
  for (auto& c : tb["checks"]) {
    for (auto& v : c["variants"]) {
      v["benchmark"] =
          "BM_demo/" + c["case"].get<std::string>() + "/" + v["name"].get<std::string>();
      v.erase("setup_bytes");
      v.erase("counters");
      v.erase("items_per_run");
    }
  }
  tb["reproducibility"].erase("variant");
  tb["reproducibility"].erase("cases");
  // Last: a new key in `ok` moves `tb` (an ordered map is a vector).
  ok["benchmarks"] = Json::array({{{"name", "BM_demo/small/baseline"}, {"run_type", "iteration"}}});
  const ResultFile back = Read(ok);
  EXPECT_EQ(back.trickbench.checks->size(), 2u);
  EXPECT_EQ(back.trickbench.checks->at(0).variants[1].items_per_run, 0);
  EXPECT_TRUE(back.trickbench.settings.backend.empty()) << back.trickbench.settings.backend.dump();
  EXPECT_EQ(back.trickbench.rounds.size(), 2u);
  EXPECT_EQ(back.trickbench.settings.rounds, 0);
  EXPECT_EQ(back.trickbench.settings.plant_factor, 1);
  EXPECT_EQ(back.trickbench.settings.iterations_from, "");  // calibrated by itself
  EXPECT_FALSE(back.trickbench.phase_seconds.has_value());
  EXPECT_FALSE(back.trickbench.checks_memory_only);
  EXPECT_EQ(back.trickbench.rounds[0].samples[0].probe_ns, 0);  // not recorded
  EXPECT_FALSE(back.ToJson()["trickbench"].contains("phase_seconds"));
  EXPECT_FALSE(back.ToJson().contains("benchmarks"));
}

// Version 1 files (Google Benchmark repetitions, before paired rounds) are refused with
// what to do: their per-repetition statistics gave false alarms on identical code.
TEST(ResultFile, RefusesVersion1FilesSayingWhatToDo) {
  Json old = testing::FullResult().ToJson();
  old["trickbench"]["schema_version"] = 1;
  try {
    Read(old);
    FAIL() << "a version 1 file was read";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(
        what.rfind("r.json: trickbench.schema_version: 1: a file from before paired rounds", 0), 0u)
        << what;
    EXPECT_NE(what.find("rerun the trick with this build"), std::string::npos) << what;
  }
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
  EXPECT_EQ(r.trickbench.settings.iterations_from, "runs/x/full.p1.json");
}

TEST(ResultFile, CheckedRunsHaveChecksButNoTimings) {
  ResultFile r = testing::FullResult();
  r.trickbench.status = ResultStatus::kChecked;
  r.trickbench.reason = "timing not run (--check_only)";
  r.trickbench.rounds.clear();
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
      {[](Json& j) {
         j = Json::array({1, 2});
       },
       "r.json: expected a JSON object, got an array"},
      {[](Json& j) {
         j.erase("trickbench");
         j["benchmarks"] = Json::array();
       },
       std::string("r.json: trickbench: ") + kGoogleBenchmarkFileMessage},
      {[](Json& j) { j.erase("trickbench"); }, "r.json: trickbench: missing"},
      {[](Json& j) { j.erase("context"); }, "r.json: context: missing"},
      {[](Json& j) { j["trickbench"]["schema_version"] = 4; },
       "r.json: trickbench.schema_version: wrong schema version 4 (this build reads versions 2 to "
       "3)"},
      {[](Json& j) { j["trickbench"]["rounds"][1]["case"] = "small"; },
       "r.json: trickbench.rounds[1].case: is 'small' but trickbench.cases[1] is 'large' (rounds "
       "come in the order of cases)"},
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
      {[](Json& j) { j["trickbench"]["rounds"][0]["samples"]["probe_ns"][2] = -1; },
       "r.json: trickbench.rounds[0].samples.probe_ns[2]: a negative time"},
      {[](Json& j) { j["trickbench"]["rounds"][0]["samples"]["probe_ns"].erase(0); },
       "r.json: trickbench.rounds[0].samples.probe_ns: has 5 values, round has 6"},
      {[](Json& j) { j["trickbench"]["settings"]["plant"]["factor"] = 0.5; },
       "r.json: trickbench.settings.plant.factor: below 1 (a plant only slows)"},
      {[](Json& j) { j["trickbench"]["id"] = ""; }, "r.json: trickbench.id: empty"},
      {[](Json& j) { j["trickbench"]["phase_seconds"]["checks"] = -0.5; },
       "r.json: trickbench.phase_seconds.checks: negative (a duration in seconds)"},
      {[](Json& j) { j["trickbench"]["phase_seconds"].erase("rounds"); },
       "r.json: trickbench.phase_seconds.rounds: missing"},
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
      {[](Json& j) { j["trickbench"]["settings"]["timing"] = 1; },
       "r.json: trickbench.settings.timing: expected a string, got a number"},
      {[](Json& j) { j["trickbench"]["nvtx"] = nullptr; },
       "r.json: trickbench.nvtx: expected a boolean, got null"},
      {[](Json& j) {
         j["trickbench"]["reproducibility"] = {{"checked", true}, {"detail", ""}};
       },
       "r.json: trickbench.reproducibility.bitwise_reproducible: missing"},
      {[](Json& j) { j["trickbench"]["reproducibility"]["cases"][1]["first_difference"] = 3; },
       "r.json: trickbench.reproducibility.cases[1].first_difference: expected a string, got a "
       "number"},
      {[](Json& j) {
         j["trickbench"]["rounds"][0]["samples"] = {{"round", Json::array()}};
       },
       "r.json: trickbench.rounds[0].samples.position: missing"},
      {[](Json& j) {
         for (auto& [k, column] : j["trickbench"]["rounds"][0]["samples"].items())
           column = Json::array();
       },
       "r.json: trickbench.rounds[0].samples: empty (status is ok, so there must be timings)"},
      {[](Json& j) { j["trickbench"]["checks"] = Json::array(); },
       "r.json: trickbench.checks: empty"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"].erase(1); },
       "r.json: trickbench.checks[0].variants: has 1 entries; trickbench.variants has 2"},
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
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"][1]["name"] = "baseline"; },
       "r.json: trickbench.checks[0].variants[1].name: is 'baseline' but trickbench.variants[1] is "
       "'optimized'"},
      {[](Json& j) { j["trickbench"]["checks"][1]["case"] = "small"; },
       "r.json: trickbench.checks[1].case: is 'small', not trickbench.cases[1] (checks come in the "
       "order of cases)"},
      {[](Json& j) { j["trickbench"]["checks"][0]["variants"][1]["items_per_run"] = -1; },
       "r.json: trickbench.checks[0].variants[1].items_per_run: out of range: -1"},
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
  const std::vector<Json> values = {
      nullptr, -1, 0, "x", Json::array(), Json::object(), 1e308, true, static_cast<uint64_t>(-1),
      -1e-300};
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
