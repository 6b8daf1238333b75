// Per-sample seeded random augmentation for torch::data datasets.
//
// LibTorch's DataLoader workers are threads that share the global CPU generator, so an
// augmentation that draws from it inside get() hands each sample whatever numbers the
// scheduler lets it grab first: the data changes with the number of workers and from
// run to run. PerSampleSeeded gives every sample a private generator seeded from
// (seed, epoch, index): the same augmentation for 0, 1, 2 or 8 workers, a different one
// per epoch and per sample, and the global generator is left alone.
//
//   auto base = trickbench::LabeledTensorDataset(images, labels);
//   auto data = trickbench::PerSampleSeeded<trickbench::LabeledTensorDataset>(
//       base, trickbench::UniformNoiseAugmentation, /*seed=*/42).WithEpoch(epoch);
//   auto loader = torch::data::make_data_loader(
//       data.map(torch::data::transforms::Stack<>()),
//       torch::data::samplers::SequentialSampler(*data.size()),
//       torch::data::DataLoaderOptions().batch_size(16).workers(4));
//
// GlobalGeneratorAugmented is the naive version (the same augmentation, drawing from
// the global generator); it is kept as worker_seeding's middle variant (threads sharing
// one generator: no duplicates, but schedule-dependent) and to show, in the tests, that
// it is not reproducible across worker counts.
//
// An Augmentation must draw all its randomness through the generator it is given
// (nullopt means the global one): torch::rand(sizes, gen), torch::randint(.., gen) etc.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <torch/types.h>
#include <torch/data.h>

#include <cstdint>
#include <functional>
#include <utility>

#include "determinism/seed.h"

namespace trickbench {

using Augmentation =
    std::function<torch::Tensor(const torch::Tensor& data, c10::optional<at::Generator> gen)>;

// Amplitude of UniformNoiseAugmentation: every value moves by at most this much.
inline constexpr double kUniformNoiseAmplitude = 0.05;

// Adds noise uniform in [-kUniformNoiseAmplitude, kUniformNoiseAmplitude) to every
// value: one draw per element, so two samples that swap draws show it.
inline torch::Tensor UniformNoiseAugmentation(const torch::Tensor& data,
                                              c10::optional<at::Generator> gen) {
  const torch::Tensor u = torch::rand(data.sizes(), gen, data.options());
  return data + (u * 2 - 1) * kUniformNoiseAmplitude;
}

// Rows of `data` with the matching entries of `targets` (same first dimension).
class LabeledTensorDataset : public torch::data::datasets::Dataset<LabeledTensorDataset> {
 public:
  LabeledTensorDataset(torch::Tensor data, torch::Tensor targets)
      : data_(std::move(data)), targets_(std::move(targets)) {
    TORCH_CHECK(data_.size(0) == targets_.size(0), "LabeledTensorDataset: ", data_.size(0),
                " samples but ", targets_.size(0), " targets");
  }
  torch::data::Example<> get(size_t index) override { return {data_[index], targets_[index]}; }
  c10::optional<size_t> size() const override { return static_cast<size_t>(data_.size(0)); }

 private:
  torch::Tensor data_, targets_;
};

// `Inner` with `augment` applied to each sample's data, drawing from a generator
// private to (seed, epoch, index). Thread-safe when Inner::get is.
template <typename Inner>
class PerSampleSeeded
    : public torch::data::datasets::Dataset<PerSampleSeeded<Inner>, typename Inner::ExampleType> {
 public:
  using ExampleType = typename Inner::ExampleType;

  PerSampleSeeded(Inner inner, Augmentation augment, uint64_t seed, uint64_t epoch = 0)
      : inner_(std::move(inner)), augment_(std::move(augment)), seed_(seed), epoch_(epoch) {}

  // The same dataset for another epoch: every sample gets new draws.
  PerSampleSeeded WithEpoch(uint64_t epoch) const {
    PerSampleSeeded copy = *this;
    copy.epoch_ = epoch;
    return copy;
  }

  ExampleType get(size_t index) override {
    ExampleType example = inner_.get(index);
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(SampleSeed(seed_, epoch_, index));
    example.data = augment_(example.data, gen);
    return example;
  }

  c10::optional<size_t> size() const override { return inner_.size(); }

 private:
  Inner inner_;
  Augmentation augment_;
  uint64_t seed_;
  uint64_t epoch_;
};

// The naive version: `augment` draws from the global generator, shared by every
// DataLoader worker thread. Reproducible only with 0 or 1 worker.
template <typename Inner>
class GlobalGeneratorAugmented
    : public torch::data::datasets::Dataset<GlobalGeneratorAugmented<Inner>,
                                            typename Inner::ExampleType> {
 public:
  using ExampleType = typename Inner::ExampleType;

  GlobalGeneratorAugmented(Inner inner, Augmentation augment)
      : inner_(std::move(inner)), augment_(std::move(augment)) {}

  ExampleType get(size_t index) override {
    ExampleType example = inner_.get(index);
    example.data = augment_(example.data, c10::nullopt);
    return example;
  }

  c10::optional<size_t> size() const override { return inner_.size(); }

 private:
  Inner inner_;
  Augmentation augment_;
};

// Every sample of `dataset` through a DataLoader with `workers` threads (0: loads in
// the calling thread), in index order: data stacked on dim 0, targets likewise.
template <typename Dataset>
torch::data::Example<> LoadInOrder(Dataset dataset, size_t workers, size_t batch_size) {
  const size_t n = dataset.size().value();
  auto loader = torch::data::make_data_loader(
      std::move(dataset).map(torch::data::transforms::Stack<>()),
      torch::data::samplers::SequentialSampler(n),
      torch::data::DataLoaderOptions().batch_size(batch_size).workers(workers));
  std::vector<torch::Tensor> data, targets;
  for (auto& batch : *loader) {
    data.push_back(batch.data);
    targets.push_back(batch.target);
  }
  return {torch::cat(data), torch::cat(targets)};
}

}  // namespace trickbench
