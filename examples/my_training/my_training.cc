// A user's own training, outside trickbench's packages, gated for reproducibility by
// trickbench's reproducibility_test (BUILD here): a small classifier of 8x8 images,
// augmented in DataLoader workers, with dropout, trained with Adam. It records every step
// with trickbench's TraceRecorder and does what the gate asks of it
// (determinism/gate_request.h): the loader's worker count, the intra-op thread count, a
// stop after a step with a checkpoint, and a resume from that checkpoint.
//
// MY_TRAINING_PLANT=<cause> plants one of the bugs a gate exists to catch;
// planted_causes_test.sh shows each caught at its tier, step, tensor and op:
//   scheduling_noise    the images pass through a kernel whose result depends on thread
//                       scheduling, as an atomic-add GPU kernel's does (racy_accumulate)
//   unseeded            no seed: every process draws other weights and data
//   shared_generator    augmentation drawn from the global generator, which the loader's
//                       worker threads share, instead of a per-sample one
//   resume_without_rng  a checkpoint without the RNG state: after a resume, dropout draws
//                       other masks than the uninterrupted run
// (A thread-count change needs no plant: 2 intra-op threads add in another order than 1,
// in the wheel's MKL matmul on some CPUs, in Adam's update on others.)
#include <ATen/Parallel.h>
#include <torch/data.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/library.h>
#include <torch/serialize.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "determinism/cost.h"
#include "determinism/gate_request.h"
#include "determinism/planted_nondeterminism.h"
#include "determinism/recorder.h"
#include "determinism/seed.h"
#include "determinism/seeded_dataset.h"

namespace {

constexpr uint64_t kSeed = 2024;
constexpr int64_t kSamples = 96, kBatch = 16, kEpochs = 2;
constexpr int64_t kStepsPerEpoch = kSamples / kBatch;

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(64, 1024))),
        drop(register_module("drop", torch::nn::Dropout(0.2))),
        fc2(register_module("fc2", torch::nn::Linear(1024, 10))) {}

  torch::Tensor forward(const torch::Tensor& images) {
    return fc2(drop(torch::relu(fc1(images.flatten(1)))));
  }

  torch::nn::Linear fc1;
  torch::nn::Dropout drop;
  torch::nn::Linear fc2;
};
TORCH_MODULE(Net);

// The scheduling_noise plant: a kernel of its own (an op, as a custom CUDA kernel would be)
// that adds to its output an offset depending on which of two threads finished first,
// and when: the same input, another output in every run. Its own loop does the adding, so
// the op that differs between runs is this one.
torch::Tensor RacyAccumulateKernel(const torch::Tensor& x) {
  torch::Tensor out = x.contiguous().clone();
  const float offset = static_cast<float>(trickbench::testing::ScheduleNoise().Offset());
  float* p = out.data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); ++i) p[i] += offset;
  return out;
}

TORCH_LIBRARY(my_training, m) { m.def("racy_accumulate(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(my_training, CPU, m) { m.impl("racy_accumulate", RacyAccumulateKernel); }

torch::Tensor RacyAccumulate(const torch::Tensor& x) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("my_training::racy_accumulate", "")
                             .typed<torch::Tensor(const torch::Tensor&)>();
  return op.call(x);
}

// Random noise on every pixel, after half a millisecond of work per sample (decoding, in
// a real loader), so that two workers are busy at once, as they would be.
torch::Tensor Augment(const torch::Tensor& image, c10::optional<at::Generator> gen) {
  std::this_thread::sleep_for(std::chrono::microseconds(500));
  return trickbench::UniformNoiseAugmentation(image, gen);
}

// Everything a resume needs: the model, the optimizer's state (Adam's moments and step
// counts), the step, and, unless the plant leaves it out, every generator's state.
void SaveCheckpoint(const std::string& dir, int64_t step, Net& model, torch::optim::Adam& opt,
                    bool with_rng) {
  torch::save(model, dir + "/model.pt");
  torch::save(opt, dir + "/optimizer.pt");
  if (with_rng) trickbench::SaveRngState(trickbench::CaptureRngState(), dir + "/rng.pt");
  std::ofstream(dir + "/step") << step << "\n";
}

// The step the checkpoint was saved after.
int64_t LoadCheckpoint(const std::string& dir, Net& model, torch::optim::Adam& opt, bool with_rng) {
  int64_t step = -1;
  if (!(std::ifstream(dir + "/step") >> step)) {
    throw std::runtime_error(dir + "/step: no checkpoint here");
  }
  torch::load(model, dir + "/model.pt");
  torch::load(opt, dir + "/optimizer.pt");
  if (with_rng) trickbench::RestoreRngState(trickbench::LoadRngState(dir + "/rng.pt"));
  return step;
}

struct Training {
  Net model;
  torch::optim::Adam& opt;
  trickbench::TraceRecorder& rec;
  int64_t stop_after_step;
  bool racy;  // the scheduling_noise plant
};

// One epoch from batch `skip` on (a resumed run skips the batches it trained before its
// checkpoint; per-sample seeding makes the rest the same). False once stopped.
template <typename Dataset>
bool RunEpoch(Dataset data, size_t workers, int64_t skip, int64_t* step, Training& t) {
  auto loader = torch::data::make_data_loader(
      std::move(data).map(torch::data::transforms::Stack<>()),
      torch::data::samplers::SequentialSampler(kSamples),
      torch::data::DataLoaderOptions().batch_size(kBatch).workers(workers));
  int64_t batch_index = 0;
  for (auto& batch : *loader) {
    if (batch_index++ < skip) continue;
    t.opt.zero_grad();
    const torch::Tensor images = t.racy ? RacyAccumulate(batch.data) : batch.data;
    const torch::Tensor loss =
        torch::nn::functional::cross_entropy(t.model->forward(images), batch.target);
    loss.backward();
    t.opt.step();
    t.rec.Step(*step, *t.model, &t.opt, loss);
    if ((*step)++ == t.stop_after_step) return false;
  }
  return true;
}

}  // namespace

int main() {
  const std::string plant = std::getenv("MY_TRAINING_PLANT") ?: "";
  const std::set<std::string> plants = {"", "scheduling_noise", "unseeded", "shared_generator",
                                        "resume_without_rng"};
  trickbench::GateRequest req;
  try {
    req = trickbench::GateRequestFromEnvironment("my_training_trace.json");
    if (!plants.count(plant))
      throw std::invalid_argument("MY_TRAINING_PLANT=" + plant + ": unknown");
  } catch (const std::invalid_argument& e) {
    std::cerr << "my_training: " << e.what() << "\n";
    return 2;
  }
  at::set_num_threads(req.threads.value_or(1));
  const size_t workers = static_cast<size_t>(req.loader_workers.value_or(2));
  if (plant != "unseeded") trickbench::SeedEverything(kSeed);

  // The data set (a real one is read from disk): 96 images in 10 classes.
  const torch::Tensor images = torch::randn({kSamples, 1, 8, 8});
  const torch::Tensor labels = torch::randint(0, 10, {kSamples}, torch::kLong);
  Net model;
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  const bool with_rng = plant != "resume_without_rng";

  int64_t step = 0;
  std::string label =
      "workers=" + std::to_string(workers) + " threads=" + std::to_string(at::get_num_threads());
  if (req.resume) {
    step = LoadCheckpoint(req.checkpoint, model, opt, with_rng) + 1;
    label += " resumed after step " + std::to_string(step - 1);
  }
  // Constructed just before the loop: a resumed run's first step is `step`.
  trickbench::TraceRecorder rec(req.trace_path,
                                {.seed = kSeed, .label = label, .first_step = step});
  Training t{model, opt, rec, req.stop_after_step, plant == "scheduling_noise"};
  const trickbench::LabeledTensorDataset base(images, labels);
  bool running = true;
  for (int64_t epoch = step / kStepsPerEpoch; running && epoch < kEpochs; ++epoch) {
    const int64_t skip = step - epoch * kStepsPerEpoch;
    if (plant == "shared_generator") {
      running = RunEpoch(
          trickbench::GlobalGeneratorAugmented<trickbench::LabeledTensorDataset>(base, Augment),
          workers, skip, &step, t);
    } else {
      running = RunEpoch(
          trickbench::PerSampleSeeded<trickbench::LabeledTensorDataset>(base, Augment, kSeed)
              .WithEpoch(epoch),
          workers, skip, &step, t);
    }
  }
  if (!running) SaveCheckpoint(req.checkpoint, step - 1, model, opt, with_rng);
  if (running && req.determinism_cost) {
    // What deterministic mode costs this training's own step, timed after the last
    // recorded step (the timing trains the model further) on the first batch's images.
    const torch::Tensor x = images.slice(0, 0, kBatch), y = labels.slice(0, 0, kBatch);
    rec.RecordDeterminismCost(trickbench::TimeDeterminismCost(
        [&] {
          opt.zero_grad();
          torch::nn::functional::cross_entropy(model->forward(x), y).backward();
          opt.step();
        },
        {}));
  }
  std::string error;
  if (!rec.Finish(&error)) {
    std::cerr << "my_training: " << error << "\n";
    return 1;
  }
  return 0;
}
