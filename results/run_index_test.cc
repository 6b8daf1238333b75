#include "results/run_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>

#include "common/test_files.h"
#include "results/full_examples.h"

namespace trickbench {
namespace results {
namespace {

TEST(RunIndex, RoundTripsEveryField) {
  const RunIndex index = testing::FullIndex();
  const Json j = index.ToJson();
  EXPECT_EQ(j["schema_version"], kIndexSchemaVersion);
  EXPECT_EQ(j["kind"], kIndexKind);
  const RunIndex back = RunIndex::FromJson(ParseJsonText(j.dump(), "index.json"), "index.json");
  EXPECT_EQ(back.ToJson().dump(), j.dump());
  ASSERT_EQ(back.tricks.size(), AllRunOutcomes().size() + 1);
  EXPECT_EQ(back.tricks[4].outcome, RunOutcome::kCrashed);
  EXPECT_FALSE(back.tricks[4].result.has_value());
  EXPECT_EQ(back.interrupted_by, "SIGTERM");
  // Schema 3: one entry per process, the machine, the A/B session.
  EXPECT_EQ(back.processes, 2);
  EXPECT_EQ(back.tricks.back().id, "trick_0");
  EXPECT_EQ(back.tricks.back().process, 2);
  EXPECT_EQ(back.tricks[0].process, 1);
  // A forked process: written only when true, read back as written.
  EXPECT_TRUE(back.tricks.back().forked);
  EXPECT_FALSE(back.tricks[0].forked);
  EXPECT_FALSE(j["tricks"][0].contains("forked"));
  EXPECT_EQ(back.machine.load_start, 0.5);
  EXPECT_EQ(back.machine.load_end, 1.25);
  EXPECT_EQ(back.machine.steal_seconds, 0.75);
  EXPECT_EQ(back.machine.involuntary_switches, 42);
  ASSERT_TRUE(back.ab.has_value());
  EXPECT_EQ(back.ab->seed, 12345);
  EXPECT_EQ(back.ab->role, "new");
  EXPECT_EQ(back.ab->old_bin_dir, "/abs/old-bin");
  EXPECT_EQ(back.ab->new_bin_dir, "/abs/new-bin");
  EXPECT_EQ(back.ab->order, (std::vector<std::string>{"old", "new", "new", "old"}));
}

TEST(RunIndex, TheBudgetRoundTripsAndABadOneIsNamed) {
  const RunIndex index = testing::FullIndex();
  const RunIndex back = RunIndex::FromJson(index.ToJson(), "i.json");
  ASSERT_TRUE(back.budget.has_value());
  EXPECT_EQ(back.budget->seconds, 520);
  EXPECT_EQ(back.budget->rule, "--budget");
  EXPECT_EQ(back.budget->first_pass_seconds, 290.5);
  EXPECT_EQ(back.budget->added, (std::map<std::string, int>{{"trick_0", 1}}));
  EXPECT_EQ(back.budget->left_out, 2);
  EXPECT_EQ(back.budget->towards_decision, 1);
  Json j = index.ToJson();
  j["budget"]["added"]["trick_0"] = -1;
  try {
    RunIndex::FromJson(j, "i.json");
    ADD_FAILURE() << "a negative count was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("i.json: budget.added.trick_0: out of range"),
              std::string::npos)
        << e.what();
  }
  j = index.ToJson();
  j["budget"].erase("first_pass_seconds");
  EXPECT_THROW(RunIndex::FromJson(j, "i.json"), InputError);
  // How many processes the second target placed: optional (records before it lack it),
  // never more than were added.
  j = index.ToJson();
  j["budget"].erase("towards_decision");
  EXPECT_FALSE(RunIndex::FromJson(j, "i.json").budget->towards_decision.has_value());
  j["budget"]["towards_decision"] = 2;
  try {
    RunIndex::FromJson(j, "i.json");
    ADD_FAILURE() << "more processes towards the second target than added were read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("i.json: budget.towards_decision: 2, more than the 1 "
                                         "processes `added` holds"),
              std::string::npos)
        << e.what();
  }
  j["budget"]["towards_decision"] = -1;
  EXPECT_THROW(RunIndex::FromJson(j, "i.json"), InputError);
  // A fixed-count run has none.
  RunIndex fixed = index;
  fixed.budget.reset();
  EXPECT_FALSE(fixed.ToJson().contains("budget"));
  EXPECT_FALSE(RunIndex::FromJson(fixed.ToJson(), "i.json").budget.has_value());
}

TEST(RunIndex, WithoutAnAbSessionThereIsNoAbField) {
  RunIndex index = testing::FullIndex();
  index.ab.reset();
  const Json j = index.ToJson();
  EXPECT_FALSE(j.contains("ab"));
  EXPECT_FALSE(RunIndex::FromJson(j, "i.json").ab.has_value());
  Json null_ab = j;
  null_ab["ab"] = nullptr;
  EXPECT_FALSE(RunIndex::FromJson(null_ab, "i.json").ab.has_value());
}

TEST(RunIndex, UnknownMachineFiguresAreMinusOne) {
  RunIndex index;
  index.started = "s";
  const RunIndex back = RunIndex::FromJson(index.ToJson(), "i.json");
  EXPECT_EQ(back.machine.load_start, -1);
  EXPECT_EQ(back.machine.load_end, -1);
  EXPECT_EQ(back.machine.steal_seconds, -1);
  EXPECT_EQ(back.machine.involuntary_switches, -1);
  EXPECT_EQ(back.processes, 1);
}

TEST(RunIndex, WritesAtomicallyAndReadsBack) {
  const std::string path = test_files::TmpDir() + "/index.json";
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

// Version 2 (one entry per trick, no process, processes, machine or ab): every entry is
// process 1 of 1, the machine unknown.
TEST(RunIndex, ReadsVersionTwoFilesAsOneProcess) {
  const Json v2 = Json::parse(R"({
    "schema_version": 2, "kind": "trickbench-run-index", "started": "2026-01-01T00:00:00Z",
    "finished": null, "complete": false, "interrupted_by": "SIGINT", "out_dir": "/x",
    "timeout_seconds": 300, "forwarded_flags": ["--threads=1"],
    "tricks": [{"id": "a", "outcome": "ok", "reason": "", "exit_code": 0, "seconds": 1.0,
                "result": "a.json", "log": "a.log"},
               {"id": "b", "outcome": "interrupted", "reason": "r", "exit_code": -1,
                "seconds": 0.5, "result": null, "log": "b.log"}]})");
  const RunIndex index = RunIndex::FromJson(v2, "index.json");
  EXPECT_EQ(index.processes, 1);
  EXPECT_FALSE(index.ab.has_value());
  EXPECT_EQ(index.machine.load_start, -1);
  EXPECT_EQ(index.machine.involuntary_switches, -1);
  ASSERT_EQ(index.tricks.size(), 2u);
  EXPECT_EQ(index.tricks[0].process, 1);
  EXPECT_EQ(index.tricks[1].process, 1);
  EXPECT_EQ(index.tricks[1].outcome, RunOutcome::kInterrupted);
  EXPECT_EQ(index.interrupted_by, "SIGINT");
  // A version 2 file lists each trick once: a repeated id is still an error there.
  Json twice = v2;
  twice["tricks"][1]["id"] = "a";
  try {
    RunIndex::FromJson(twice, "index.json");
    ADD_FAILURE() << "accepted a repeated id in a version 2 index";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "index.json: tricks[1].id: duplicate trick id a");
  }
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
      {[](Json& j) { j["schema_version"] = 4; },
       "i.json: schema_version: wrong schema version 4 (this build reads versions 1 to 3)"},
      {[](Json& j) { j["schema_version"] = "2"; },
       "i.json: schema_version: expected an integer, got a string"},
      {[](Json& j) { j.erase("started"); }, "i.json: started: missing"},
      {[](Json& j) { j["complete"] = "yes"; },
       "i.json: complete: expected a boolean, got a string"},
      {[](Json& j) { j["interrupted_by"] = 15; },
       "i.json: interrupted_by: expected a string, got a number"},
      {[](Json& j) { j["out_dir"] = nullptr; }, "i.json: out_dir: expected a string, got null"},
      {[](Json& j) { j["timeout_seconds"] = "300"; },
       "i.json: timeout_seconds: expected a number, got a string"},
      {[](Json& j) { j["forwarded_flags"] = {1}; },
       "i.json: forwarded_flags[0]: expected a string, got a number"},
      {[](Json& j) { j["tricks"] = Json::object(); },
       "i.json: tricks: expected an array, got an object"},
      {[](Json& j) { j["tricks"][1] = 5; }, "i.json: tricks[1]: expected an object, got a number"},
      {[](Json& j) { j["tricks"][0]["phase_seconds"]["rounds"] = -1; },
       "i.json: tricks[0].phase_seconds.rounds: negative (a duration in seconds)"},
      {[](Json& j) { j["tricks"][0]["forked"] = "yes"; },
       "i.json: tricks[0].forked: expected a boolean, got a string"},
      {[](Json& j) { j["tricks"][0]["phase_seconds"] = 3; },
       "i.json: tricks[0].phase_seconds: expected an object, got a number"},
      {[](Json& j) { j["tricks"][2]["outcome"] = "exploded"; },
       "i.json: tricks[2].outcome: unknown outcome 'exploded'"},
      {[](Json& j) { j["tricks"][2]["id"] = j["tricks"][0]["id"]; },
       "i.json: tricks[2].process: duplicate process 1 of trick trick_0"},
      {[](Json& j) { j["tricks"][0].erase("process"); }, "i.json: tricks[0].process: missing"},
      {[](Json& j) { j["tricks"][0]["process"] = 0; },
       "i.json: tricks[0].process: out of range: 0"},
      {[](Json& j) { j["tricks"][0]["process"] = 3; },
       "i.json: tricks[0].process: process 3 but processes is 2"},
      {[](Json& j) { j["tricks"][0]["process"] = 1.5; },
       "i.json: tricks[0].process: expected an integer, got a number"},
      {[](Json& j) { j.erase("processes"); }, "i.json: processes: missing"},
      {[](Json& j) { j["processes"] = 0; }, "i.json: processes: out of range: 0"},
      {[](Json& j) { j.erase("machine"); }, "i.json: machine: missing"},
      {[](Json& j) { j["machine"] = 1; }, "i.json: machine: expected an object, got a number"},
      {[](Json& j) { j["machine"].erase("load_start"); }, "i.json: machine.load_start: missing"},
      {[](Json& j) { j["machine"]["load_end"] = "high"; },
       "i.json: machine.load_end: expected a number, got a string"},
      {[](Json& j) { j["machine"]["steal_seconds"] = -0.5; },
       "i.json: machine.steal_seconds: negative (only -1, unknown, may be)"},
      {[](Json& j) { j["machine"]["involuntary_switches"] = -2; },
       "i.json: machine.involuntary_switches: out of range: -2"},
      {[](Json& j) { j["ab"] = "yes"; }, "i.json: ab: expected an object, got a string"},
      {[](Json& j) { j["ab"].erase("seed"); }, "i.json: ab.seed: missing"},
      {[](Json& j) { j["ab"]["seed"] = -1; }, "i.json: ab.seed: out of range: -1"},
      {[](Json& j) { j["ab"]["role"] = "both"; },
       "i.json: ab.role: expected \"old\" or \"new\", got 'both'"},
      {[](Json& j) { j["ab"].erase("old_bin_dir"); }, "i.json: ab.old_bin_dir: missing"},
      {[](Json& j) { j["ab"]["new_bin_dir"] = 2; },
       "i.json: ab.new_bin_dir: expected a string, got a number"},
      {[](Json& j) { j["ab"]["order"][2] = "newer"; },
       "i.json: ab.order[2]: expected \"old\" or \"new\", got 'newer'"},
      {[](Json& j) { j["ab"]["order"] = "old,new"; },
       "i.json: ab.order: expected an array, got a string"},
      {[](Json& j) { j["tricks"][0]["id"] = ""; }, "i.json: tricks[0].id: empty"},
      {[](Json& j) { j["tricks"][0].erase("reason"); }, "i.json: tricks[0].reason: missing"},
      {[](Json& j) { j["tricks"][0]["result"] = 1; },
       "i.json: tricks[0].result: expected a file name or null, got a number"},
      {[](Json& j) { j["tricks"][0].erase("result"); }, "i.json: tricks[0].result: missing"},
      {[](Json& j) { j["tricks"][0]["exit_code"] = 256; },
       "i.json: tricks[0].exit_code: out of range: 256"},
      {[](Json& j) { j["tricks"][0]["exit_code"] = -2; },
       "i.json: tricks[0].exit_code: out of range: -2"},
      {[](Json& j) { j["tricks"][0]["seconds"] = -1.0; },
       "i.json: tricks[0].seconds: negative time"},
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

TEST(RunIndex, TimedProcess1ResultIsProcess1sFileOnlyWhenItTimed) {
  RunIndex index;
  auto entry = [](const std::string& id, int process, RunOutcome outcome,
                  std::optional<std::string> result) {
    IndexEntry e;
    e.id = id;
    e.process = process;
    e.outcome = outcome;
    e.result = std::move(result);
    return e;
  };
  index.tricks = {entry("a", 2, RunOutcome::kOk, "a.p2.json"),
                  entry("a", 1, RunOutcome::kOk, "a.p1.json"),
                  entry("b", 1, RunOutcome::kInvalid, "b.p1.json"),
                  entry("c", 1, RunOutcome::kCrashed, std::nullopt),
                  entry("d", 1, RunOutcome::kOk, ""),
                  entry("e", 2, RunOutcome::kOk, "e.p2.json")};
  EXPECT_EQ(TimedProcess1Result(index, "a"), "a.p1.json");
  for (const char* id : {"b", "c", "d", "e", "absent"}) {
    EXPECT_EQ(TimedProcess1Result(index, id), std::nullopt) << id;
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
