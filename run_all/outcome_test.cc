#include "run_all/outcome.h"

#include <gtest/gtest.h>

#include "common/test_files.h"
#include "results/result_file.h"

namespace trickbench {
namespace results {
// Failures name the outcome, not its bytes.
void PrintTo(RunOutcome o, std::ostream* os) { *os << Name(o); }
}  // namespace results

namespace run_all {
namespace {

using results::ResultStatus;
using results::RunOutcome;

// A run folder with process 1's demo.p1.log and, optionally, a demo.p1.json with `status`.
struct Folder {
  std::string dir;
  explicit Folder(const std::string& name) {
    dir = test_files::ScratchDir(name);
    test_files::Write(dir + "/demo.p1.log", "line one\n\nline two\nthe last line\n");
  }
  void WriteResult(ResultStatus status, const std::string& reason) {
    results::ResultFile r;
    results::TrickResult& t = r.trickbench;
    t.id = "demo";
    t.category = "test";
    t.source = "test";
    t.claim = "none";
    t.status = status;
    t.reason = reason;
    t.device = "cpu";
    t.baseline = "baseline";
    t.variants = {"baseline", "optimized"};
    t.cases = {""};
    t.reproduced_variant = "optimized";
    t.settings.threads = 1;
    t.settings.min_time = 0.1;
    if (status == ResultStatus::kInvalid || status == ResultStatus::kChecked) {
      results::CaseChecks c;
      for (const std::string v : {"baseline", "optimized"}) {
        results::VariantCheck vc;
        vc.name = v;
        vc.equivalent = v == "baseline";
        vc.active = true;
        c.variants.push_back(vc);
      }
      t.checks = std::vector<results::CaseChecks>{c};
    }
    std::string error;
    ASSERT_TRUE(results::WriteResultFile(dir + "/demo.p1.json", r, &error)) << error;
  }
};

ChildExit Exited(int code) {
  ChildExit e;
  e.started = e.exited = true;
  e.exit_code = code;
  e.seconds = 1.5;
  return e;
}

TEST(Classify, ReadsTheFilesOfItsOwnProcess) {
  Folder f("own_process");
  f.WriteResult(ResultStatus::kSkipped, "needs CUDA");  // process 1's file
  test_files::Write(f.dir + "/demo.p2.log", "process two\n");
  const results::IndexEntry e = Classify("demo", 2, Exited(0), f.dir, 300);
  EXPECT_EQ(e.process, 2);
  EXPECT_EQ(e.log, "demo.p2.log");
  EXPECT_FALSE(e.result.has_value()) << "took process 1's result for process 2's";
  EXPECT_EQ(e.outcome, RunOutcome::kFailed);
  EXPECT_NE(e.reason.find("no result file: process two"), std::string::npos) << e.reason;
  EXPECT_EQ(FileStem("demo", 12), "demo.p12");
}

TEST(Classify, AResultIsBelievedWithTheExitStatusThatGoesWithIt) {
  Folder f("believed");
  f.WriteResult(ResultStatus::kSkipped, "needs CUDA");
  results::IndexEntry e = Classify("demo", 1, Exited(0), f.dir, 300);
  EXPECT_EQ(e.outcome, RunOutcome::kSkipped);
  EXPECT_EQ(e.reason, "needs CUDA");
  EXPECT_EQ(e.exit_code, 0);
  EXPECT_EQ(e.seconds, 1.5);
  EXPECT_EQ(e.result, "demo.p1.json");
  EXPECT_EQ(e.log, "demo.p1.log");
  EXPECT_EQ(e.process, 1);

  f.WriteResult(ResultStatus::kChecked, "");
  EXPECT_EQ(Classify("demo", 1, Exited(0), f.dir, 300).outcome, RunOutcome::kOk);

  f.WriteResult(ResultStatus::kInvalid, "optimized differs");
  e = Classify("demo", 1, Exited(3), f.dir, 300);
  EXPECT_EQ(e.outcome, RunOutcome::kInvalid);
  EXPECT_EQ(e.reason, "optimized differs");

  f.WriteResult(ResultStatus::kError, "threw");
  EXPECT_EQ(Classify("demo", 1, Exited(1), f.dir, 300).outcome, RunOutcome::kError);
}

TEST(Classify, AResultThatDisagreesWithTheExitStatusIsAFailure) {
  Folder f("disagree");
  f.WriteResult(ResultStatus::kSkipped, "needs CUDA");
  const results::IndexEntry e = Classify("demo", 1, Exited(1), f.dir, 300);
  EXPECT_EQ(e.outcome, RunOutcome::kFailed);
  EXPECT_EQ(e.reason, "exit 1: line two | the last line");
  f.WriteResult(ResultStatus::kInvalid, "differs");
  EXPECT_EQ(Classify("demo", 1, Exited(0), f.dir, 300).outcome, RunOutcome::kFailed);
}

TEST(Classify, NoOrAMalformedResultFileIsAFailureThatSaysSo) {
  Folder f("missing");
  results::IndexEntry e = Classify("demo", 1, Exited(1), f.dir, 300);
  EXPECT_EQ(e.outcome, RunOutcome::kFailed);
  EXPECT_EQ(e.reason, "exit 1, no result file: line two | the last line");
  EXPECT_FALSE(e.result.has_value());
  test_files::Write(f.dir + "/demo.p1.json", "{\"trickbench\": 3}");
  e = Classify("demo", 1, Exited(0), f.dir, 300);
  EXPECT_EQ(e.outcome, RunOutcome::kFailed);
  EXPECT_NE(e.reason.find("exit 0, result file rejected (" + f.dir + "/demo.p1.json: "),
            std::string::npos)
      << e.reason;
  EXPECT_FALSE(e.result.has_value());
}

TEST(Classify, WhatRunAllSawOutranksTheResultFile) {
  Folder f("outranks");
  f.WriteResult(ResultStatus::kOk, "");
  ChildExit crash;
  crash.started = true;
  crash.term_signal = SIGABRT;
  results::IndexEntry e = Classify("demo", 1, crash, f.dir, 300);
  EXPECT_EQ(e.outcome, RunOutcome::kCrashed);
  EXPECT_EQ(e.exit_code, -1);
  EXPECT_NE(e.reason.find("killed by signal 6 ("), std::string::npos) << e.reason;
  EXPECT_NE(e.reason.find("): the last line"), std::string::npos) << e.reason;

  ChildExit timeout = crash;
  timeout.term_signal = SIGTERM;
  timeout.timed_out = true;
  e = Classify("demo", 1, timeout, f.dir, 8.5);
  EXPECT_EQ(e.outcome, RunOutcome::kTimeout);
  EXPECT_EQ(e.reason, "exceeded the 8 s limit");

  ChildExit stopped = Exited(0);  // exited cleanly after the forwarded signal
  stopped.stopped_by = SIGTERM;
  e = Classify("demo", 1, stopped, f.dir, 300);
  EXPECT_EQ(e.outcome, RunOutcome::kInterrupted);
  EXPECT_EQ(e.reason, "run_all got SIGTERM and stopped it");
}

TEST(Classify, AProcessThatNeverStartedIsAFailure) {
  Folder f("unstarted");
  ChildExit e;
  e.start_error = "fork: Resource temporarily unavailable";
  const results::IndexEntry entry = Classify("demo", 1, e, f.dir, 300);
  EXPECT_EQ(entry.outcome, RunOutcome::kFailed);
  EXPECT_EQ(entry.reason, e.start_error);
}

TEST(LastLines, SkipsEmptyLinesAndJoins) {
  Folder f("last");
  EXPECT_EQ(LastLines(f.dir + "/demo.p1.log", 1), "the last line");
  EXPECT_EQ(LastLines(f.dir + "/demo.p1.log", 9), "line one | line two | the last line");
  EXPECT_EQ(LastLines(f.dir + "/none.log", 2), "");
}

}  // namespace
}  // namespace run_all
}  // namespace trickbench
