// ddp_no_sync (A13, A18, B): gradient accumulation under data parallelism, all-reducing
// the grads once per optimizer step (DDP's no_sync() on all micro-batches but the
// last) instead of after every micro-batch's backward (DDP's default).
//
// Two rank processes (this binary re-executed, distributed/rank_group.h; Gloo over loopback,
// distributed/process_group.h), each with a copy of the shared MLP. One run is one optimizer
// step on a batch of 256 as 4 micro-batches of 64, each split between the ranks (32
// samples per rank), each micro-batch loss scaled by 1/4:
//   sync_every_micro_batch (baseline): after each backward the accumulated grads are
//     averaged over the ranks (one all-reduce through one flat buffer, as DDP's
//     buckets do; DDP reduces the accumulated grad, and since what was reduced before
//     is equal on every rank, the sum of averages is the average of the sums);
//   no_sync: backward on every micro-batch locally, one all-reduce after the last.
// Every rank then steps its own copy (SGD). Both give the full-batch mean gradient up
// to float summation order: parameters after the steps agree within rtol 1e-5,
// atol 1e-6 (a few fp32 ulp; a dropped step or a missing average is far beyond it).
//
// Evidence: each step's reply carries the all-reduces rank 0 ran in it
// (allreduce_calls_per_step: 4 or 1), counted where they are issued; the ranks'
// parameters are checked to be equal bit for bit (the all-reduce kept them in sync).
// Both variants run in the same ranks with the same threads (the benchmark's intra-op
// budget split between the ranks on this machine, at least 1 each).
// Under torchrun, srun or mpirun (distributed/README.md) the ranks are the launcher's:
// this process is rank 0 and steps its own share, the world is the launcher's. On a CUDA host the ranks still run
// on the CPU: the article's NCCL setting needs GPUs per rank. Memory: the work is in
// the rank processes, which the harness's meter (this process) does not see: no claim.
#include <torch/nn/functional.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include <utility>

#include "distributed/launcher_env.h"
#include "distributed/process_group.h"
#include "distributed/rank_group.h"
#include "distributed/rank_main.h"
#include "harness/trick.h"
#include "workloads/workloads.h"

namespace {

namespace wl = trickbench::workloads;

constexpr int kRanks = 2;
constexpr int64_t kBatch = 256, kMicroBatches = 4;
const wl::MlpSize kModel{.in = 256, .hidden = 512, .out = 10, .layers = 2};

c10::IValue Request(const std::string& command, c10::IValue payload = c10::IValue()) {
  return c10::ivalue::Tuple::create({c10::IValue(command), std::move(payload)});
}

// One rank. Requests: ("setup", (params, input, target)), ("step", sync_every) ->
// all-reduces run, ("state", None) -> (params, ranks_in_sync).
struct RankState {
  torch::nn::Sequential model{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer;
  std::vector<torch::Tensor> inputs, targets;  // this rank's share of each micro-batch
};

trickbench::distributed::RankHandler MakeRankHandler(trickbench::distributed::Group& group,
                                                     const trickbench::distributed::RankEnv& env) {
  auto state = std::make_shared<RankState>();
  return [&group, env, state](const c10::IValue& request) -> c10::IValue {
    const auto& e = request.toTupleRef().elements();
    const std::string& command = e.at(0).toStringRef();
    if (command == "setup") {
      const auto& args = e.at(1).toTupleRef().elements();
      state->model = wl::Mlp(kModel);
      const auto params = state->model->parameters();
      const auto given = args.at(0).toTensorVector();
      if (given.size() != params.size())
        throw std::invalid_argument("setup: parameter count differs");
      {
        torch::NoGradGuard no_grad;
        for (size_t i = 0; i < params.size(); ++i) params[i].copy_(given[i]);
      }
      const auto inputs = args.at(1).toTensor().chunk(kMicroBatches);
      const auto targets = args.at(2).toTensor().chunk(kMicroBatches);
      for (int64_t m = 0; m < kMicroBatches; ++m) {
        state->inputs.push_back(inputs[m].chunk(env.world_size)[env.rank].clone());
        state->targets.push_back(targets[m].chunk(env.world_size)[env.rank].clone());
      }
      state->optimizer =
          std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(0.05));
      return c10::IValue();
    }
    if (!state->model) throw std::logic_error(command + " before setup");
    if (command == "step") {
      const bool sync_every = e.at(1).toBool();
      int64_t allreduces = 0;
      state->model->zero_grad(/*set_to_none=*/true);
      for (int64_t m = 0; m < kMicroBatches; ++m) {
        const auto loss = torch::nn::functional::cross_entropy(
            state->model->forward(state->inputs[m]), state->targets[m]);
        (loss / static_cast<double>(kMicroBatches)).backward();
        if (sync_every || m == kMicroBatches - 1) {
          trickbench::distributed::AverageGradients(group, state->model->parameters());
          ++allreduces;
        }
      }
      state->optimizer->step();
      return c10::IValue(allreduces);
    }
    if (command == "state") {
      const bool in_sync =
          trickbench::distributed::InSyncWithRankZero(group, state->model->parameters());
      return c10::ivalue::Tuple::create(
          {c10::IValue(wl::Parameters(*state->model)), c10::IValue(in_sync)});
    }
    throw std::invalid_argument("unknown request " + command);
  };
}
TRICKBENCH_RANK_MAIN(ddp_no_sync, MakeRankHandler);

class NoSync : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    const auto model = wl::Mlp(kModel);
    const wl::Batch batch = wl::ClassificationBatch(kBatch, kModel.in, kModel.out);
    trickbench::distributed::RankGroupOptions options;
    options.entry = "ddp_no_sync";
    options.world_size = kRanks;
    int ranks_here = kRanks;
    if (const auto* launched = trickbench::distributed::Launched()) {
      // Each micro-batch is split evenly, or the ranks' shares would differ in size.
      if ((kBatch / kMicroBatches) % launched->rank.world_size != 0) {
        throw std::invalid_argument(
            "the launcher's world of " + std::to_string(launched->rank.world_size) +
            " ranks does not divide a micro-batch of " + std::to_string(kBatch / kMicroBatches));
      }
      ranks_here = launched->local_world_size;
    }
    options.threads_per_rank = std::max(1, at::get_num_threads() / ranks_here);
    ranks_ = std::make_unique<trickbench::distributed::RankGroup>(options);
    ranks_->Call(Request("setup", c10::ivalue::Tuple::create({c10::IValue(wl::Parameters(*model)),
                                                              batch.input, batch.target})));
  }

  void SyncEveryMicroBatch() { Step(true); }
  void NoSyncUntilLast() { Step(false); }

  trickbench::Tensors Result() override { return State().at(0).toTensorVector(); }

  std::string Inactive(const std::string& variant) override {
    const int64_t expected = variant == "no_sync" ? 1 : kMicroBatches;
    if (allreduces_ != expected) {
      return "the step ran " + std::to_string(allreduces_) + " all-reduces, expected " +
             std::to_string(expected);
    }
    if (!State().at(1).toBool())
      return "the ranks' parameters differ: the all-reduce did not sync them";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"allreduce_calls_per_step", static_cast<double>(allreduces_)},
            {"micro_batches", static_cast<double>(kMicroBatches)},
            {"ranks", static_cast<double>(ranks_->options().world_size)},
            {"intra_op_threads_per_rank", static_cast<double>(ranks_->options().threads_per_rank)}};
  }

  int64_t ItemsPerRun() const override { return kBatch; }

 private:
  void Step(bool sync_every) {
    allreduces_ = ranks_->Call(Request("step", c10::IValue(sync_every))).toInt();
    state_ = c10::IValue();
  }

  std::vector<c10::IValue> State() {
    if (state_.isNone()) state_ = ranks_->Call(Request("state"));
    return state_.toTupleRef().elements().vec();
  }

  std::unique_ptr<trickbench::distributed::RankGroup> ranks_;
  int64_t allreduces_ = 0;
  c10::IValue state_;  // rank 0's ("state") reply since the last step
};

}  // namespace

TRICKBENCH_TRICK(ddp_no_sync, NoSync)
    .Category("Distributed")
    .Source("A13, A18, B")
    .Claim("fewer all-reduces per optimizer step")
    .Expect(trickbench::claim::Faster())
    .Trains()
    .HostSide("the ranks train on the CPU and all-reduce with Gloo whatever the device")
    .Variant("sync_every_micro_batch", &NoSync::SyncEveryMicroBatch)
    .Variant("no_sync", &NoSync::NoSyncUntilLast)
    .Tolerance(1e-5, 1e-6);
