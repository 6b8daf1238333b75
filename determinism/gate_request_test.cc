// GateRequestFromEnvironment: what the gate's variables ask of a run, and each malformed
// or contradictory setting refused with the variable named.
#include "determinism/gate_request.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "determinism/recorder.h"

namespace trickbench {
namespace {

constexpr const char* kAll[] = {kTracePathVariable,      kLoaderWorkersVariable, kThreadsVariable,
                                kCheckpointVariable,     kStopAfterStepVariable, kResumeVariable,
                                kDeterminismCostVariable};

class GateRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kAll) unsetenv(v);
  }
  void TearDown() override { SetUp(); }

  // The message GateRequestFromEnvironment throws, "" when it does not.
  static std::string Refusal() {
    try {
      GateRequestFromEnvironment("t.json");
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(GateRequestTest, NothingSetIsAPlainRun) {
  const GateRequest r = GateRequestFromEnvironment("t.json");
  EXPECT_EQ(r.trace_path, "t.json");
  EXPECT_FALSE(r.loader_workers);
  EXPECT_FALSE(r.threads);
  EXPECT_EQ(r.stop_after_step, -1);
  EXPECT_FALSE(r.resume);
  EXPECT_EQ(r.checkpoint, "");
  EXPECT_FALSE(r.determinism_cost);
}

TEST_F(GateRequestTest, ReadsEveryTiersVariables) {
  setenv(kTracePathVariable, "/tmp/x.json", 1);
  setenv(kLoaderWorkersVariable, "0", 1);
  setenv(kThreadsVariable, "2", 1);
  setenv(kCheckpointVariable, "/tmp/ckpt", 1);
  setenv(kStopAfterStepVariable, "3", 1);
  GateRequest r = GateRequestFromEnvironment("t.json");
  EXPECT_EQ(r.trace_path, "/tmp/x.json");
  EXPECT_EQ(r.loader_workers, 0);
  EXPECT_EQ(r.threads, 2);
  EXPECT_EQ(r.checkpoint, "/tmp/ckpt");
  EXPECT_EQ(r.stop_after_step, 3);
  EXPECT_FALSE(r.resume);
  unsetenv(kStopAfterStepVariable);
  setenv(kResumeVariable, "1", 1);
  setenv(kDeterminismCostVariable, "1", 1);
  r = GateRequestFromEnvironment("t.json");
  EXPECT_TRUE(r.resume);
  EXPECT_EQ(r.stop_after_step, -1);
  EXPECT_TRUE(r.determinism_cost);
}

TEST_F(GateRequestTest, RefusesMalformedAndContradictorySettingsNamingTheVariable) {
  setenv(kLoaderWorkersVariable, "two", 1);
  EXPECT_EQ(Refusal(), "$TRICKBENCH_LOADER_WORKERS=two: expected an integer >= 0");
  unsetenv(kLoaderWorkersVariable);
  setenv(kThreadsVariable, "0", 1);
  EXPECT_EQ(Refusal(), "$TRICKBENCH_THREADS=0: expected an integer >= 1");
  unsetenv(kThreadsVariable);
  setenv(kStopAfterStepVariable, "-1", 1);
  EXPECT_EQ(Refusal(), "$TRICKBENCH_STOP_AFTER_STEP=-1: expected an integer >= 0");
  setenv(kStopAfterStepVariable, "4", 1);
  EXPECT_EQ(Refusal(),
            "$TRICKBENCH_STOP_AFTER_STEP needs $TRICKBENCH_CHECKPOINT: where the checkpoint is");
  setenv(kCheckpointVariable, "/tmp/ckpt", 1);
  setenv(kResumeVariable, "1", 1);
  EXPECT_NE(Refusal().find("are both set: a run either stops or resumes"), std::string::npos);
  unsetenv(kStopAfterStepVariable);
  setenv(kResumeVariable, "yes", 1);
  EXPECT_EQ(Refusal(), "$TRICKBENCH_RESUME=yes: expected 0 or 1");
  unsetenv(kResumeVariable);
  setenv(kDeterminismCostVariable, "on", 1);
  EXPECT_EQ(Refusal(), "$TRICKBENCH_DETERMINISM_COST=on: expected 0 or 1");
  unsetenv(kDeterminismCostVariable);
  setenv(kResumeVariable, "1", 1);
  unsetenv(kCheckpointVariable);
  EXPECT_EQ(Refusal(), "$TRICKBENCH_RESUME needs $TRICKBENCH_CHECKPOINT: where the checkpoint is");
}

}  // namespace
}  // namespace trickbench
