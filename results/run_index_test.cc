#include "results/run_index.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

#include "results/test_files.h"

namespace trickbench {
namespace results {
namespace {

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d ? d : "/tmp";
}

TEST(RunIndex, RoundTripsEveryField) {
  const RunIndex index = testing::FullIndex();
  const Json j = index.ToJson();
  EXPECT_EQ(j["schema_version"], kIndexSchemaVersion);
  EXPECT_EQ(j["kind"], kIndexKind);
  const RunIndex back = RunIndex::FromJson(ParseJsonText(j.dump(), "index.json"), "index.json");
  EXPECT_EQ(back.ToJson().dump(), j.dump());
  ASSERT_EQ(back.tricks.size(), AllRunOutcomes().size());
  EXPECT_EQ(back.tricks[4].outcome, RunOutcome::kCrashed);
  EXPECT_FALSE(back.tricks[4].result.has_value());
  EXPECT_EQ(back.interrupted_by, "SIGTERM");
}

TEST(RunIndex, WritesAtomicallyAndReadsBack) {
  const std::string path = TmpDir() + "/index.json";
  std::string error;
  ASSERT_TRUE(WriteRunIndex(path, testing::FullIndex(), &error)) << error;
  EXPECT_EQ(ReadRunIndex(path).ToJson(), testing::FullIndex().ToJson());
  EXPECT_FALSE(WriteRunIndex("/nonexistent-dir/index.json", testing::FullIndex(), &error));
  EXPECT_NE(error.find("/nonexistent-dir"), std::string::npos) << error;
}

TEST(RunIndex, AStartedRunWithNoTrickYetIsValid) {
  RunIndex index;
  index.started = "2026-01-01T00:00:00Z";
  const Json j = index.ToJson();
  EXPECT_TRUE(j["finished"].is_null());
  EXPECT_TRUE(j["interrupted_by"].is_null());
  const RunIndex back = RunIndex::FromJson(j, "index.json");
  EXPECT_TRUE(back.tricks.empty());
  EXPECT_FALSE(back.complete);
  EXPECT_FALSE(back.finished.has_value());
}

// What run_all wrote before version 2 (no interrupted_by) still reads.
TEST(RunIndex, ReadsVersionOneFiles) {
  const Json v1 = Json::parse(R"({
    "schema_version": 1, "kind": "trickbench-run-index", "started": "2026-01-01T00:00:00Z",
    "finished": "2026-01-01T00:10:00Z", "complete": true, "out_dir": "/x",
    "timeout_seconds": 300, "forwarded_flags": [],
    "tricks": [{"id": "a", "outcome": "ok", "reason": "", "exit_code": 0, "seconds": 1.0,
                "result": "a.json", "log": "a.log"},
               {"id": "b", "outcome": "crashed", "reason": "signal 6", "exit_code": -1,
                "seconds": 0.5, "result": null, "log": "b.log"}]})");
  const RunIndex index = RunIndex::FromJson(v1, "index.json");
  EXPECT_TRUE(index.complete);
  EXPECT_EQ(index.finished, "2026-01-01T00:10:00Z");
  EXPECT_FALSE(index.interrupted_by.has_value());
  ASSERT_EQ(index.tricks.size(), 2u);
  EXPECT_EQ(index.tricks[1].outcome, RunOutcome::kCrashed);
  EXPECT_EQ(index.tricks[1].reason, "signal 6");
  // The minimum today's merge needs: no out_dir, timeout, exit_code, seconds or log.
  const Json minimal = Json::parse(R"({"schema_version": 1, "kind": "trickbench-run-index",
    "started": "s", "complete": false, "forwarded_flags": ["--x"],
    "tricks": [{"id": "a", "outcome": "timeout", "reason": "r", "result": null}]})");
  EXPECT_EQ(RunIndex::FromJson(minimal, "i.json").tricks[0].outcome, RunOutcome::kTimeout);
}

struct Bad {
  std::function<void(Json&)> change;
  std::string message;  // the whole what()
};

TEST(RunIndex, RejectsBadInputNamingTheField) {
  const std::vector<Bad> cases = {
      {[](Json& j) { j = Json::array(); }, "i.json: expected a JSON object, got an array"},
      {[](Json& j) { j.erase("kind"); }, "i.json: kind: missing"},
      {[](Json& j) { j["kind"] = "trickbench-report"; },
       "i.json: kind: expected \"trickbench-run-index\""},
      {[](Json& j) { j["schema_version"] = 3; },
       "i.json: schema_version: wrong schema version 3 (this build reads versions 1 to 2)"},
      {[](Json& j) { j["schema_version"] = "2"; },
       "i.json: schema_version: expected an integer, got a string"},
      {[](Json& j) { j.erase("started"); }, "i.json: started: missing"},
      {[](Json& j) { j["complete"] = "yes"; }, "i.json: complete: expected a boolean, got a string"},
      {[](Json& j) { j["interrupted_by"] = 15; },
       "i.json: interrupted_by: expected a string, got a number"},
      {[](Json& j) { j["out_dir"] = nullptr; }, "i.json: out_dir: expected a string, got null"},
      {[](Json& j) { j["timeout_seconds"] = "300"; },
       "i.json: timeout_seconds: expected a number, got a string"},
      {[](Json& j) { j["forwarded_flags"] = {1}; },
       "i.json: forwarded_flags[0]: expected a string, got a number"},
      {[](Json& j) { j["tricks"] = Json::object(); }, "i.json: tricks: expected an array, got an object"},
      {[](Json& j) { j["tricks"][1] = 5; }, "i.json: tricks[1]: expected an object, got a number"},
      {[](Json& j) { j["tricks"][2]["outcome"] = "exploded"; },
       "i.json: tricks[2].outcome: unknown outcome 'exploded'"},
      {[](Json& j) { j["tricks"][2]["id"] = j["tricks"][0]["id"]; },
       "i.json: tricks[2].id: duplicate trick id trick_0"},
      {[](Json& j) { j["tricks"][0]["id"] = ""; }, "i.json: tricks[0].id: empty"},
      {[](Json& j) { j["tricks"][0].erase("reason"); }, "i.json: tricks[0].reason: missing"},
      {[](Json& j) { j["tricks"][0]["result"] = 1; },
       "i.json: tricks[0].result: expected a file name or null, got a number"},
      {[](Json& j) { j["tricks"][0].erase("result"); }, "i.json: tricks[0].result: missing"},
      {[](Json& j) { j["tricks"][0]["exit_code"] = 256; }, "i.json: tricks[0].exit_code: out of range: 256"},
      {[](Json& j) { j["tricks"][0]["exit_code"] = -2; }, "i.json: tricks[0].exit_code: out of range: -2"},
      {[](Json& j) { j["tricks"][0]["seconds"] = -1.0; }, "i.json: tricks[0].seconds: negative time"},
      {[](Json& j) { j["tricks"][0]["log"] = false; },
       "i.json: tricks[0].log: expected a string, got a boolean"},
  };
  for (const Bad& c : cases) {
    Json j = testing::FullIndex().ToJson();
    c.change(j);
    try {
      RunIndex::FromJson(j, "i.json");
      ADD_FAILURE() << "accepted; expected: " << c.message;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
      EXPECT_EQ(e.file(), "i.json");
    }
  }
}

TEST(RunIndex, ReadRunIndexNamesTheFile) {
  try {
    ReadRunIndex("/nonexistent/index.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/index.json");
  }
}

}  // namespace
}  // namespace results
}  // namespace trickbench
