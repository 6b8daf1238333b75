#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/optim/optimizer.h>
#include <torch/optim/sgd.h>
#include <torch/serialize.h>
#include <torch/utils.h>

#include "determinism/trace.h"

#include <gtest/gtest.h>

#include <cmath>

#include "third_party/libtorch/compat.h"

namespace trickbench {
namespace {

struct Tiny {
  torch::nn::Sequential model{torch::nn::Linear(4, 3), torch::nn::ReLU(), torch::nn::Linear(3, 2)};
  void Step(torch::optim::Optimizer& opt) {
    opt.zero_grad();
    model->forward(torch::ones({5, 4})).pow(2).sum().backward();
    opt.step();
  }
};

std::vector<std::string> Names(const NamedTensors& ts) {
  std::vector<std::string> out;
  for (const auto& [n, t] : ts) out.push_back(n);
  return out;
}

TEST(OptimizerStateTensors, NamesAdamStateAfterTheModulesParameters) {
  torch::manual_seed(0);
  Tiny t;
  torch::optim::Adam adam(t.model->parameters(), torch::optim::AdamOptions(0.1));
  EXPECT_TRUE(OptimizerStateTensors(adam, *t.model).empty()) << "no state before a step";
  t.Step(adam);
  const auto names = Names(OptimizerStateTensors(adam, *t.model));
  const std::vector<std::string> first = {"0.weight.step", "0.weight.exp_avg",
                                          "0.weight.exp_avg_sq"};
  ASSERT_EQ(names.size(), 4u * 3);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 3), first);
  EXPECT_EQ(names.back(), "2.bias.exp_avg_sq");
}

TEST(OptimizerStateTensors, SgdMomentumAndPlainSgd) {
  Tiny t;
  torch::optim::SGD plain(t.model->parameters(), torch::optim::SGDOptions(0.1));
  t.Step(plain);
  EXPECT_TRUE(OptimizerStateTensors(plain, *t.model).empty());
  torch::optim::SGD momentum(t.model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  t.Step(momentum);
  EXPECT_EQ(Names(OptimizerStateTensors(momentum, *t.model)).front(), "0.weight.momentum_buffer");
}

struct OddState : torch::optim::OptimizerCloneableParamState<OddState> {};
struct OddOptimizer : torch::optim::Optimizer {
  explicit OddOptimizer(std::vector<torch::Tensor> params)
      : Optimizer({torch::optim::OptimizerParamGroup(std::move(params))},
                  std::make_unique<torch::optim::SGDOptions>(0.1)) {
    for (const auto& p : param_groups_[0].params()) {
      state_[torch_compat::OptimizerStateKey(p)] = std::make_unique<OddState>();
    }
  }
  torch::Tensor step(LossClosure) override { return {}; }
  void save(torch::serialize::OutputArchive&) const override {}
  void load(torch::serialize::InputArchive&) override {}
};

TEST(OptimizerStateTensors, BadInputIsRejected) {
  Tiny t, other;
  OddOptimizer odd(t.model->parameters());
  EXPECT_THROW(OptimizerStateTensors(odd, *t.model), std::invalid_argument);
  torch::optim::SGD sgd(t.model->parameters(), torch::optim::SGDOptions(0.1));
  EXPECT_THROW(OptimizerStateTensors(sgd, *other.model), std::invalid_argument);
}

TEST(TrainingState, CoversParamsGradsBuffersAndOptimizer) {
  torch::nn::Sequential m{torch::nn::Linear(2, 2), torch::nn::BatchNorm1d(2)};
  torch::optim::Adam adam(m->parameters());
  m->forward(torch::randn({4, 2})).sum().backward();
  adam.step();
  const auto names = Names(TrainingState(*m, &adam));
  for (const char* n :
       {"param:0.weight", "grad:1.bias", "buffer:1.running_mean", "optim:0.bias.exp_avg"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
}

// Two identical traces, then one tensor of one step perturbed by `delta`.
std::pair<TrainingTrace, TrainingTrace> Traces(bool keep_values, int bad_step, float delta) {
  TrainingTrace a(keep_values), b(keep_values);
  for (int s = 0; s < 4; ++s) {
    const auto w = torch::arange(6, torch::kFloat) * (s + 1);
    auto w2 = w.clone();
    if (s >= bad_step) w2[2] += delta;
    a.Record({{"param:w", w}, {"grad:w", w * 2}});
    b.Record({{"param:w", w2}, {"grad:w", w * 2}});
  }
  return {a, b};
}

TEST(FindDivergence, NamesFirstStepTensorAndExactSize) {
  const auto [a, b] = Traces(/*keep_values=*/true, /*bad_step=*/2, 0.25f);
  const auto d = FindDivergence(a, b);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->step, 2);
  EXPECT_EQ(d->tensor, "param:w");
  EXPECT_EQ(d->what, "values");
  EXPECT_TRUE(d->exact);
  EXPECT_DOUBLE_EQ(d->max_abs_diff, 0.25);
  EXPECT_EQ(d->differing_elements, 1);
  EXPECT_EQ(d->elements, 6);
  EXPECT_NE(d->Describe().find("step 2, tensor param:w"), std::string::npos) << d->Describe();
  EXPECT_FALSE(FindDivergence(a, a).has_value());
}

TEST(FindDivergence, OneUlpWithoutValuesReportsTheSummaries) {
  const float ulp = std::nextafter(8.f, INFINITY) - 8.f;  // element 2 of step 3 is 8
  const auto [a, b] = Traces(/*keep_values=*/false, /*bad_step=*/3, ulp);
  const auto d = FindDivergence(a, b);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->step, 3);
  EXPECT_FALSE(d->exact);
  EXPECT_NEAR(d->sum_diff, ulp, 1e-12);
  EXPECT_NE(d->Describe().find("sum differs by"), std::string::npos);
}

TEST(FindDivergence, MissingStepsAndTensorsAndShapes) {
  TrainingTrace a, b;
  a.Record({{"x", torch::ones({2})}});
  b.Record({{"x", torch::ones({2})}});
  a.Record({{"x", torch::ones({2})}});
  auto d = FindDivergence(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->step, 1);
  EXPECT_EQ(d->what, "step missing in run b");

  TrainingTrace c, e;
  c.Record({{"x", torch::ones({2})}, {"y", torch::ones({1})}});
  e.Record({{"x", torch::ones({2})}});
  d = FindDivergence(c, e);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->tensor, "y");
  EXPECT_EQ(d->what, "only in run a");

  TrainingTrace f, g;
  f.Record({{"x", torch::ones({2})}});
  g.Record({{"x", torch::ones({1, 2})}});
  d = FindDivergence(f, g);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->what.rfind("shape", 0), 0u) << d->what;
}

TEST(TrainingTrace, JsonRoundTripKeepsEverythingButValues) {
  const auto [a, b] = Traces(/*keep_values=*/true, /*bad_step=*/1, 1e-3f);
  const TrainingTrace ra = TrainingTrace::FromJson(a.ToJson());
  const TrainingTrace rb = TrainingTrace::FromJson(b.ToJson());
  EXPECT_FALSE(FindDivergence(a, ra).has_value());
  EXPECT_EQ(ra.FinalDigest(), a.FinalDigest());
  const auto d = FindDivergence(ra, rb);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->step, 1);
  EXPECT_FALSE(d->exact);
  EXPECT_GT(d->sum_diff, 0);
}

TEST(TrainingTrace, BadJsonNamesTheField) {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      TrainingTrace::FromJson(text);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error_of("{not json").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of("{}").find("\"steps\""), std::string::npos);
  EXPECT_NE(error_of(R"({"steps":[{"step":0,"tensors":[]}]})").find("steps[0] lacks \"digest\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"steps":[{"step":0,"digest":"xyz","tensors":[]}]})").find("hex"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"steps":[{"step":"zero","digest":"0000000000000000","tensors":[]}]})")
                .find("wrong type"),
            std::string::npos);
}

}  // namespace
}  // namespace trickbench
