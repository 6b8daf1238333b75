// The loaders on bad input: every kind of bad result file and index refused with an
// error naming the file and the field, and a seeded fuzz run of mutated files that must
// never crash them.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>

#include "reports/cli.h"
#include "reports/load.h"
#include "reports/report.h"
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
using testing::CopyOfRun;
using testing::Fixture;
using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;

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
