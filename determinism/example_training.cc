// A small training of the kind a user gates with reproducibility_test (defs.bzl): seeded,
// data augmented in DataLoader workers, an MLP trained with SGD and momentum, every step
// recorded with TraceRecorder into $TRICKBENCH_TRACE. It reads the knobs the rule turns:
// $TRICKBENCH_LOADER_WORKERS and $TRICKBENCH_THREADS.
//
// TRICKBENCH_EXAMPLE_PLANT plants a bug the gate must catch: "unseeded" (no seed: every
// process draws other weights), "global_augmentation" (augmentation from the global
// generator, shared by the worker threads: the data depends on the worker count).
#include <ATen/Parallel.h>
#include <torch/data.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "determinism/recorder.h"
#include "determinism/seed.h"
#include "determinism/seeded_dataset.h"

namespace {

// Noise as in seeded_dataset.h, after half a millisecond of work per sample (decoding, in
// a real loader): with several workers, two of them are busy at once, as they would be.
torch::Tensor Augment(const torch::Tensor& data, c10::optional<at::Generator> gen) {
  std::this_thread::sleep_for(std::chrono::microseconds(500));
  return trickbench::UniformNoiseAugmentation(data, gen);
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

template <typename Dataset>
void Train(Dataset data, torch::nn::Sequential& model, torch::optim::SGD& opt, size_t workers,
           trickbench::TraceRecorder& rec) {
  auto loader = torch::data::make_data_loader(
      std::move(data).map(torch::data::transforms::Stack<>()),
      torch::data::samplers::SequentialSampler(64),
      torch::data::DataLoaderOptions().batch_size(16).workers(workers));
  int64_t step = 0;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto& batch : *loader) {
      opt.zero_grad();
      auto logits = model->forward(batch.data.flatten(1));
      auto loss = torch::nn::functional::cross_entropy(logits, batch.target);
      loss.backward();
      opt.step();
      rec.Step(step++, *model, &opt, loss);
    }
  }
}

}  // namespace

int main() {
  const std::string plant = std::getenv("TRICKBENCH_EXAMPLE_PLANT") ?: "";
  const size_t workers = static_cast<size_t>(EnvInt("TRICKBENCH_LOADER_WORKERS", 2));
  at::set_num_threads(EnvInt("TRICKBENCH_THREADS", 1));
  const uint64_t seed = 0;
  if (plant != "unseeded") trickbench::SeedEverything(seed);

  const torch::Tensor images = torch::randn({64, 1, 4, 4});
  const torch::Tensor labels = torch::randint(0, 3, {64}, torch::kLong);
  torch::nn::Sequential model(torch::nn::Linear(16, 32), torch::nn::ReLU(),
                              torch::nn::Linear(32, 3));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  trickbench::TraceRecorder rec(trickbench::TracePathFromEnvironment("example_trace.json"),
                                {.seed = seed, .label = "workers=" + std::to_string(workers)});
  trickbench::LabeledTensorDataset base(images, labels);
  if (plant == "global_augmentation") {
    Train(trickbench::GlobalGeneratorAugmented<trickbench::LabeledTensorDataset>(base, Augment),
          model, opt, workers, rec);
  } else {
    Train(trickbench::PerSampleSeeded<trickbench::LabeledTensorDataset>(base, Augment, seed), model,
          opt, workers, rec);
  }
  std::string error;
  if (!rec.Finish(&error)) {
    std::cerr << "example_training: " << error << "\n";
    return 1;
  }
  return 0;
}
