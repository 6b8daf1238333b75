#include "determinism/reference_training.h"

#include <torch/data.h>
#include <torch/nn/functional.h>
#include <torch/optim/adam.h>
#include <torch/serialize.h>

#include <sstream>

#include "determinism/seeded_dataset.h"
#include "workloads/workloads.h"

namespace trickbench {
namespace {

constexpr int64_t kSamples = 256;
constexpr int64_t kFeatures = 64;
constexpr int64_t kClasses = 10;
constexpr size_t kBatch = 32;
constexpr int64_t kBatchesPerEpoch = kSamples / kBatch;
constexpr double kDropout = 0.1;

std::string Serialize(const std::function<void(torch::serialize::OutputArchive&)>& save) {
  torch::serialize::OutputArchive archive;
  save(archive);
  std::ostringstream os;
  archive.save_to(os);
  return os.str();
}

void Deserialize(const std::string& bytes,
                 const std::function<void(torch::serialize::InputArchive&)>& load) {
  torch::serialize::InputArchive archive;
  std::istringstream is(bytes);
  archive.load_from(is);
  load(archive);
}

}  // namespace

ReferenceRun RunReferenceTraining(const ReferenceOptions& o, const Checkpoint* resume) {
  // Setup draws from the generators in the same order whether or not we resume, so
  // the data is the same; a resumed run then overwrites model, optimizer and RNG state.
  if (o.seed_rngs) SeedEverything(o.seed);
  const torch::Tensor features = torch::randn({kSamples, kFeatures});
  const torch::Tensor labels = torch::randint(kClasses, {kSamples}, torch::kLong);
  auto model = workloads::Mlp({.in = kFeatures, .hidden = 128, .out = kClasses, .layers = 2});
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  // The shuffle and augmentation seed comes from the harness generator, so seeding
  // covers it and a missing seed changes it.
  const uint64_t data_seed = HarnessRng()();

  ReferenceRun run;
  run.trace = TrainingTrace(o.keep_values);
  int64_t step = 0;
  if (resume) {
    Deserialize(resume->model, [&](auto& a) { model->load(a); });
    Deserialize(resume->optimizer, [&](auto& a) { optimizer.load(a); });
    if (o.restore_rng) RestoreRngState(resume->rng);
    step = resume->next_step;
  }
  model->train();
  const int64_t end = o.stop_after > 0 ? std::min(o.stop_after, o.steps) : o.steps;
  while (step < end) {
    const int64_t epoch = step / kBatchesPerEpoch;
    // Per-epoch order from a generator private to the epoch: resumable mid-epoch
    // without saving a sampler's state.
    at::Generator order_gen =
        at::make_generator<at::CPUGeneratorImpl>(SampleSeed(data_seed, epoch, ~uint64_t{0}));
    const torch::Tensor order = torch::randperm(kSamples, order_gen, torch::kLong);
    PerSampleSeeded<LabeledTensorDataset> data(
        LabeledTensorDataset(features.index_select(0, order), labels.index_select(0, order)),
        UniformNoiseAugmentation, data_seed, epoch);
    auto loader = torch::data::make_data_loader(
        std::move(data).map(torch::data::transforms::Stack<>()),
        torch::data::samplers::SequentialSampler(kSamples),
        torch::data::DataLoaderOptions().batch_size(kBatch).workers(o.workers));
    int64_t batch_in_epoch = 0;
    for (auto& batch : *loader) {
      if (batch_in_epoch++ < step % kBatchesPerEpoch) continue;  // resumed mid-epoch
      if (step >= end) break;
      optimizer.zero_grad();
      torch::Tensor x = torch::dropout(batch.data, kDropout, /*train=*/true);
      torch::Tensor logits = model->forward(x);
      if (o.perturb) logits = o.perturb(logits);
      torch::nn::functional::cross_entropy(logits, batch.target).backward();
      optimizer.step();
      run.trace.Record(step, TrainingState(*model, &optimizer));
      ++step;
    }
  }
  if (end < o.steps) {
    Checkpoint c;
    c.model = Serialize([&](auto& a) { model->save(a); });
    c.optimizer = Serialize([&](auto& a) { optimizer.save(a); });
    c.rng = CaptureRngState();
    c.next_step = step;
    run.checkpoint = std::move(c);
  }
  return run;
}

}  // namespace trickbench
