// The gate's library and CLI on a small training of its own: the recorder's trace file
// round-trips; the diff says "bitwise equal" for two seeded runs, names the first step
// and tensor for a missing seed and for noise planted at one step, separates "within
// tolerance" from "beyond", compares a resumed run from its first step, names the audit
// states that differ and prints a recorded determinism cost; and the CLI exits 0 / 1 / 2,
// naming the file and field on bad input. The audit itself: audit_test.cc.
#include <gtest/gtest.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "determinism/guard.h"
#include "determinism/op_trace.h"
#include "determinism/recorder.h"
#include "determinism/trace_diff.h"
#include "determinism/trace_file.h"
#include "harness/testing/subprocess.h"
#include "results/checked_json.h"

namespace trickbench {
namespace {

std::string g_diff_binary;

std::string TempPath(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) / name).string();
}

struct Plan {
  uint64_t seed = 0;
  bool seed_it = true;
  int hidden = 16;
  int64_t noise_step = -1;  // add `noise` to the first weight after this step
  double noise = 0;
  int64_t steps = 6;
  // Record from this step on, as a run resumed after step record_from - 1 does: the
  // recorder is made just before it (TraceRecorderOptions::first_step).
  int64_t record_from = 0;
};

// A seeded MLP trained with SGD, recorded step by step into `path`.
TraceFile Train(const Plan& plan, const std::string& path) {
  if (plan.seed_it) torch::manual_seed(plan.seed);
  torch::nn::Sequential model(torch::nn::Linear(8, plan.hidden), torch::nn::ReLU(),
                              torch::nn::Linear(plan.hidden, 2));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  const torch::Tensor x = torch::randn({32, 8}), y = torch::randn({32, 2});
  std::optional<TraceRecorder> rec;
  for (int64_t step = 0; step < plan.steps; ++step) {
    if (step == plan.record_from) {
      rec.emplace(path, TraceRecorderOptions{.seed = plan.seed,
                                             .label = "hidden=" + std::to_string(plan.hidden),
                                             .first_step = plan.record_from});
    }
    opt.zero_grad();
    const torch::Tensor loss = (model->forward(x) - y).pow(2).mean();
    loss.backward();
    opt.step();
    if (step == plan.noise_step) {
      torch::NoGradGuard no_grad;
      model->parameters()[0].add_(plan.noise);
    }
    if (rec) rec->Step(step, *model, &opt, loss, {{"lr", torch::tensor(0.1)}});
  }
  std::string error;
  EXPECT_TRUE(rec->Finish(&error)) << error;
  return rec->file();
}

TEST(TraceFile, RoundTripsWithEnvironmentAndAudit) {
  const std::string path = TempPath("round_trip.json");
  const TraceFile written = Train({}, path);
  const TraceFile read = ReadTraceFile(path);
  EXPECT_EQ(read.label, "hidden=16");
  EXPECT_EQ(read.environment, written.environment);
  EXPECT_EQ(read.environment.count("torch"), 1u);
  EXPECT_EQ(read.environment.count("cpu_model"), 1u);
  ASSERT_EQ(read.audit.size(), written.audit.size());
  ASSERT_FALSE(read.audit.empty());
  EXPECT_EQ(read.audit[0].name, "deterministic_algorithms");
  EXPECT_EQ(read.audit[0].status, written.audit[0].status);
  ASSERT_EQ(read.trace.steps().size(), 6u);
  EXPECT_EQ(read.trace.FinalDigest(), written.trace.FinalDigest());
  // The loss and the named extra are recorded beside the training state.
  const auto& names = read.trace.steps()[0].tensors;
  const auto has = [&](const std::string& n) {
    for (const auto& t : names) {
      if (t.digest.name == n) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("loss"));
  EXPECT_TRUE(has("extra:lr"));
  EXPECT_TRUE(has("param:0.weight"));
  EXPECT_TRUE(has("optim:0.weight.momentum_buffer"));
}

TEST(TraceFile, ADeterminismCostRoundTripsAndTheDiffPrintsIt) {
  const TraceFile a = Train({}, TempPath("cost_a.json"));
  TraceFile timed = a;
  timed.determinism_cost = CostSamples{.log_ratios = {-0.05, -0.07, -0.06}, .steps_per_sample = 8};
  std::string error;
  ASSERT_TRUE(WriteTraceFile(TempPath("cost_b.json"), timed, &error)) << error;
  const TraceFile read = ReadTraceFile(TempPath("cost_b.json"));
  ASSERT_TRUE(read.determinism_cost);
  EXPECT_EQ(read.determinism_cost->log_ratios, timed.determinism_cost->log_ratios);
  EXPECT_EQ(read.determinism_cost->steps_per_sample, 8);
  const TraceDiff d = DiffTraces(a, read, {}, "a.json", "b.json");
  EXPECT_TRUE(d.Bitwise()) << "a timed run's steps are the same run's";
  // The median round: log(default / deterministic) = -0.06, so exp(0.06) = 1.062x.
  EXPECT_NE(d.Describe("a.json", "b.json")
                .find("determinism cost of b.json's step: deterministic mode: 1.062x"),
            std::string::npos)
      << d.Describe("a.json", "b.json");

  timed.determinism_cost = CostSamples{.error = "index_add_ has no deterministic kernel"};
  ASSERT_TRUE(WriteTraceFile(TempPath("cost_c.json"), timed, &error)) << error;
  EXPECT_NE(DiffTraces(a, ReadTraceFile(TempPath("cost_c.json")), {}, "a.json", "c.json")
                .Describe("a.json", "c.json")
                .find("c.json's step: it cannot run in deterministic mode: index_add_"),
            std::string::npos);

  results::Json j = results::Json::parse(TraceFileJson(a));
  j["determinism_cost"] = {
      {"log_ratios", results::Json::array()}, {"steps_per_sample", 0}, {"error", ""}};
  try {
    ParseTraceFile(j.dump(), "empty_cost.json");
    FAIL() << "accepted a cost with neither rounds nor an error";
  } catch (const results::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("determinism_cost"), std::string::npos) << e.what();
  }
}

TEST(TraceFile, BadFilesNameTheFileAndField) {
  const auto refused = [](const std::string& text) -> std::string {
    try {
      ParseTraceFile(text, "t.json");
    } catch (const results::InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(refused("").find("t.json: not JSON: the file is empty"), std::string::npos);
  EXPECT_NE(refused("{\"schema\": \"trickbench.trace\"").find("t.json"), std::string::npos);
  EXPECT_NE(refused(R"({"schema": "trickbench.result"})").find("not a trace file"),
            std::string::npos);
  const std::string head = R"({"schema": "trickbench.trace", "schema_version": )";
  EXPECT_NE(refused(head + "2}").find("schema_version: wrong schema version 2"), std::string::npos);
  const std::string ok = head + R"(1, "label": "", "seed": 0, "environment": {}, "audit": [],)";
  EXPECT_NE(refused(ok + R"("steps": [{"step": 0, "tensors": []}]})").find("lacks \"digest\""),
            std::string::npos);
  EXPECT_NE(refused(ok + R"("steps": {}})").find("t.json: steps: expected an array"),
            std::string::npos);
  EXPECT_EQ(refused(ok + R"("steps": []})"), "(accepted)");
  EXPECT_NE(
      refused(ok + R"("ops": {"step": 0, "records": [{"name": "aten::mul", "inputs": ["xyz"],)"
                   R"( "outputs": []}]}, "steps": []})")
          .find("t.json: ops.records[0].inputs: 'xyz' is not 16 hex digits"),
      std::string::npos);
}

TEST(TraceRecorder, RefusesStepsOutOfOrderAndASecondFinish) {
  torch::nn::Linear model(2, 2);
  TraceRecorder rec(TempPath("order.json"));
  rec.Step(3, *model, nullptr, torch::Tensor());
  EXPECT_THROW(rec.Step(3, *model, nullptr, torch::Tensor()), std::invalid_argument);
  std::string error;
  EXPECT_TRUE(rec.Finish(&error)) << error;
  EXPECT_FALSE(rec.Finish(&error));
  EXPECT_THROW(rec.Step(4, *model, nullptr, torch::Tensor()), std::invalid_argument);
}

TEST(TraceRecorder, AnUnwritablePathFailsWithoutAFile) {
  torch::nn::Linear model(2, 2);
  TraceRecorder rec("/nonexistent-folder/t.json");
  rec.Step(0, *model, nullptr, torch::Tensor());
  std::string error;
  EXPECT_FALSE(rec.Finish(&error));
  EXPECT_NE(error.find("/nonexistent-folder/t.json"), std::string::npos) << error;
}

TEST(TraceRecorder, PathFromTheEnvironment) {
  unsetenv(kTracePathVariable);
  EXPECT_EQ(TracePathFromEnvironment("x.json"), "x.json");
  setenv(kTracePathVariable, "/tmp/y.json", 1);
  EXPECT_EQ(TracePathFromEnvironment("x.json"), "/tmp/y.json");
  unsetenv(kTracePathVariable);
}

TEST(TraceDiff, TwoSeededRunsAreBitwiseEqual) {
  const TraceFile a = Train({}, TempPath("a.json")), b = Train({}, TempPath("b.json"));
  const TraceDiff d = DiffTraces(a, b, {});
  EXPECT_TRUE(d.Bitwise()) << d.Describe("a", "b");
  EXPECT_EQ(d.ExitCode(), 0);
  EXPECT_NE(d.Describe("a", "b").find("bitwise equal"), std::string::npos);
}

TEST(TraceDiff, AnotherSeedDivergesAtTheFirstStep) {
  const TraceFile a = Train({}, TempPath("s0.json"));
  const TraceFile b = Train({.seed = 7}, TempPath("s7.json"));
  const TraceDiff d = DiffTraces(a, b, {});
  ASSERT_FALSE(d.Bitwise());
  EXPECT_EQ(d.first->step, 0);
  EXPECT_EQ(d.first->tensor, "param:0.weight");
  EXPECT_EQ(d.ExitCode(), 1);
}

TEST(TraceDiff, PlantedNoiseIsFoundAtItsStepAndToleranceSeparatesItsSize) {
  const TraceFile a = Train({}, TempPath("clean.json"));
  const TraceFile tiny = Train({.noise_step = 3, .noise = 1e-7}, TempPath("tiny.json"));
  const TraceFile big = Train({.noise_step = 3, .noise = 1e-2}, TempPath("big.json"));

  const TraceDiff bitwise = DiffTraces(a, tiny, {});
  ASSERT_FALSE(bitwise.Bitwise());
  EXPECT_EQ(bitwise.first->step, 3);
  EXPECT_EQ(bitwise.first->tensor, "param:0.weight");
  EXPECT_EQ(bitwise.ExitCode(), 1);

  const TraceDiff loose = DiffTraces(a, tiny, {.rtol = 1e-3, .atol = 1e-4});
  EXPECT_FALSE(loose.beyond_tolerance) << loose.Describe("a", "tiny");
  EXPECT_EQ(loose.within_tolerance, loose.differing_tensors);
  EXPECT_GT(loose.differing_tensors, 0);
  EXPECT_EQ(loose.ExitCode(), 0);
  EXPECT_NE(loose.Describe("a", "tiny").find("within tolerance, not bitwise"), std::string::npos);

  const TraceDiff strict = DiffTraces(a, big, {.rtol = 1e-3, .atol = 1e-4});
  ASSERT_TRUE(strict.beyond_tolerance);
  EXPECT_EQ(strict.beyond_tolerance->step, 3);
  EXPECT_EQ(strict.ExitCode(), 1);
}

TEST(TraceDiff, AResumedRunIsComparedFromItsFirstStepOnlyWhenAskedTo) {
  setenv(kOpTraceStepVariable, "4", 1);
  const TraceFile whole = Train({}, TempPath("whole.json"));
  const TraceFile resumed = Train({.record_from = 4}, TempPath("resumed.json"));
  const TraceFile noisy =
      Train({.noise_step = 4, .noise = 1e-2, .record_from = 4}, TempPath("resumed_noisy.json"));
  unsetenv(kOpTraceStepVariable);
  ASSERT_EQ(resumed.trace.steps().front().step, 4);
  // Unasked, the steps the resumed run lacks are a divergence.
  const TraceDiff unasked = DiffTraces(whole, resumed, {});
  ASSERT_FALSE(unasked.Bitwise());
  EXPECT_EQ(unasked.first->step, 0);
  EXPECT_EQ(unasked.first->what, "step missing in run b");

  // The resumed run's first step records its ops from the recorder's construction on, so
  // they are the uninterrupted run's ops of that step, one for one.
  const TraceDiff same = DiffTraces(whole, resumed, {.from_step = 4});
  EXPECT_TRUE(same.Bitwise()) << same.Describe("whole", "resumed");
  EXPECT_EQ(same.ops_step, 4);
  EXPECT_FALSE(resumed.ops.empty());
  EXPECT_FALSE(same.first_op) << same.Describe("whole", "resumed");
  EXPECT_NE(same.Describe("whole", "resumed").find("compared from step 4 on"), std::string::npos);
  const TraceDiff parted = DiffTraces(resumed, noisy, {.from_step = 4});
  ASSERT_FALSE(parted.Bitwise());
  EXPECT_EQ(parted.first->step, 4);
  try {
    DiffTraces(whole, resumed, {.from_step = 6}, "whole.json", "resumed.json");
    FAIL() << "compared traces with no step from 6 on";
  } catch (const results::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no step recorded from step 6 on"), std::string::npos)
        << e.what();
  }
}

TEST(TraceDiff, DifferentTrainingsAreBadInputNotADivergence) {
  const TraceFile a = Train({}, TempPath("h16.json"));
  const TraceFile b = Train({.hidden = 12}, TempPath("h12.json"));
  try {
    DiffTraces(a, b, {}, "h16.json", "h12.json");
    FAIL() << "accepted traces of two models";
  } catch (const results::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("h12.json: steps[0].tensors: not a trace of the same training as h16.json"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("param:0.weight has shape [12, 8], [16, 8] there"), std::string::npos) << m;
  }
}

TEST(TraceDiff, NamesTheAuditStatesThatDiffer) {
  const TraceFile a = Train({}, TempPath("plain.json"));
  TraceFile b;
  {
    DeterministicGuard guard;
    b = Train({}, TempPath("guarded.json"));
  }
  const TraceDiff d = DiffTraces(a, b, {});
  EXPECT_TRUE(d.Bitwise()) << "the guard changes no CPU kernel of this model";
  bool named = false;
  for (const auto& line : d.environment_differences) {
    named = named || line == "audit deterministic_algorithms: off | on";
  }
  EXPECT_TRUE(named) << d.Describe("a", "b");
}

TEST(OpTrace, NamesTheFirstOpThatComputedDifferently) {
  // The same ops, once with another generator state: aten::uniform_ is the first op
  // whose output differs, with equal tensor inputs (its destination is fresh memory).
  const auto draw = [](uint64_t seed) {
    torch::manual_seed(seed);
    OpTraceScope scope;
    const torch::Tensor y = (torch::rand({4, 4}) * 2.0).relu();
    return scope.Take();
  };
  const auto a = draw(1), same = draw(1), b = draw(2);
  ASSERT_FALSE(a.empty());
  EXPECT_FALSE(FirstOpDivergence(a, same)) << "allocations' uninitialised bytes are not compared";
  const auto d = FirstOpDivergence(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->op, "aten::uniform_");
  EXPECT_TRUE(d->inputs_equal);
  EXPECT_NE(d->Describe().find("its tensor inputs are equal: the op itself computed differently"),
            std::string::npos);
  // Other data: the first op that differs has other inputs.
  const torch::Tensor x = torch::randn({4, 4}), x2 = x + 1;
  const auto ops_on = [](const torch::Tensor& in) {
    OpTraceScope scope;
    const torch::Tensor y = (in * 2.0).relu();
    return scope.Take();
  };
  const auto e = FirstOpDivergence(ops_on(x), ops_on(x2));
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->inputs_equal);
  EXPECT_NE(e->Describe().find("its inputs differ already"), std::string::npos);
  // A different op sequence.
  std::vector<OpRecord> longer = a;
  longer.push_back({"aten::add_", {1}, {2}});
  const auto f = FirstOpDivergence(a, longer);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->index, static_cast<int64_t>(a.size()));
  EXPECT_NE(f->Describe().find("different code paths"), std::string::npos);
}

TEST(OpTrace, TheRecorderKeepsTheAskedStepsOpsAndTheDiffNamesTheOp) {
  const std::string clean_path = TempPath("ops_clean.json"),
                    noisy_path = TempPath("ops_noisy.json");
  setenv(kOpTraceStepVariable, "3", 1);
  Train({}, clean_path);
  Train({.noise_step = 3, .noise = 1e-2}, noisy_path);
  unsetenv(kOpTraceStepVariable);
  const TraceFile clean = ReadTraceFile(clean_path), noisy = ReadTraceFile(noisy_path);
  EXPECT_EQ(clean.ops_step, 3);
  EXPECT_FALSE(clean.ops.empty());
  bool has_addmm = false;
  for (const auto& op : clean.ops) has_addmm = has_addmm || op.name == "aten::addmm";
  EXPECT_TRUE(has_addmm) << "the step's linear layers";
  const TraceDiff d = DiffTraces(clean, noisy, {});
  EXPECT_EQ(d.ops_step, 3);
  ASSERT_TRUE(d.first_op);
  EXPECT_NE(d.Describe("a", "b").find("ops of step 3: first op whose output differs"),
            std::string::npos)
      << d.Describe("a", "b");
  // Without ops the report says how to get them.
  const TraceFile plain = Train({.noise_step = 3, .noise = 1e-2}, TempPath("ops_none.json"));
  EXPECT_EQ(plain.ops_step, -1);
  EXPECT_NE(DiffTraces(Train({}, TempPath("ops_none_a.json")), plain, {})
                .Describe("a", "b")
                .find("TRICKBENCH_OP_TRACE_STEP=3"),
            std::string::npos);
  setenv(kOpTraceStepVariable, "x", 1);
  EXPECT_EQ(OpTraceStepFromEnvironment(), -1);
  unsetenv(kOpTraceStepVariable);
}

// The CLI as a user runs it.
subprocess::Proc Diff(const std::string& args) {
  return subprocess::RunCommand(g_diff_binary + " " + args);
}

TEST(DiffCli, ExitsZeroOneTwoAndNamesWhatWasWrong) {
  const std::string a = TempPath("cli_a.json"), b = TempPath("cli_b.json");
  const std::string c = TempPath("cli_c.json"), m = TempPath("cli_m.json");
  Train({}, a);
  Train({}, b);
  Train({.seed = 3}, c);
  Train({.hidden = 4}, m);

  auto p = Diff(a + " " + b);
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("bitwise equal"), std::string::npos) << p.output;

  p = Diff(a + " " + c + " --audit");
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_NE(p.output.find("runs diverged at step 0, tensor param:0.weight"), std::string::npos)
      << p.output;
  EXPECT_NE(p.output.find("audit of " + a), std::string::npos) << p.output;

  p = Diff(a + " " + TempPath("missing.json"));
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("missing.json: cannot read"), std::string::npos) << p.output;

  const std::string truncated = TempPath("truncated.json");
  {
    std::ifstream in(a);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(truncated) << text.substr(0, text.size() / 2);
  }
  p = Diff(a + " " + truncated);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("truncated.json: "), std::string::npos) << p.output;

  p = Diff(a + " " + m);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("not a trace of the same training"), std::string::npos) << p.output;

  p = Diff(a + " " + c + " --from_step=2");
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_NE(p.output.find("compared from step 2 on\nruns diverged at step 2"), std::string::npos)
      << p.output;
  p = Diff(a + " " + b + " --from_step=x");
  EXPECT_EQ(p.exit_code, 2) << p.output;

  p = Diff(a);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  p = Diff(a + " " + b + " --rtol=-1");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("--rtol=-1: expected a finite number >= 0"), std::string::npos);
  p = Diff("--help");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("--rtol"), std::string::npos) << p.output;
}

}  // namespace
}  // namespace trickbench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--diff=", 0) == 0) trickbench::g_diff_binary = a.substr(7);
  }
  if (trickbench::g_diff_binary.empty()) {
    std::fprintf(stderr, "usage: %s --diff=PATH\n", argv[0]);
    return 2;
  }
  at::set_num_threads(1);
  return RUN_ALL_TESTS();
}
