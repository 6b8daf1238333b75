// A torch::data Dataset over a SampleStore, with per-sample seeded augmentation, and
// one ordered epoch through LibTorch's own DataLoader.
//
//   auto store = std::make_shared<FileStore>(dir);
//   ImageDataset dataset(store, {.seed = 7, .augment = {.crop = 56}});
//   EpochDigest digest;
//   RunEpoch(dataset.ForEpoch(0), {.batch_size = 64, .workers = 2},
//            [&](torch::data::Example<>& batch) { digest.Add(batch); });
//
// Why the augmentation is seeded per sample: LibTorch's DataLoader workers are threads
// sharing the global generator, so drawing from it in get() makes the data depend on
// thread timing. Each sample instead draws from its own generator seeded with
// (seed, epoch, index): the same pixels for any number of workers.
//
// get() throws (naming the file or shard record) when a sample cannot be read or
// decoded; the DataLoader rethrows it in the consuming thread, and RunEpoch throws if
// an epoch delivers fewer samples than the dataset holds: a run is never silently short.
#pragma once

#include <torch/types.h>
#include <torch/data.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "data/sample_store.h"

namespace trickbench::data {

// splitmix64 over (seed, epoch, index): well-mixed and cheap.
uint64_t SampleSeed(uint64_t seed, int64_t epoch, uint64_t index);

struct AugmentOptions {
  int64_t crop = 0;         // random crop to crop x crop; 0 keeps the size
  bool flip = true;         // horizontal flip with probability 1/2
  double brightness = 0.2;  // multiply by a factor uniform in [1 - b, 1 + b]
};

// uint8 {H, W, 3} in, float {3, h, w} in [0, 1 + brightness] out.
torch::Tensor Augment(const torch::Tensor& image, uint64_t sample_seed,
                      const AugmentOptions& options);

// What ImageDataset::get() did during one run: evidence, for a trick's Inactive(), of the
// code path its body really took (which codec decoded the bytes, whether anything was
// resized, which files the bytes came from, which threads produced the samples), where
// what SetUp configured would only say what was meant to happen. get() records into it
// from any loader thread when DatasetOptions::trace is set; the trick resets it at the
// start of every body, so it describes the last run only. One lock per sample: noise
// next to reading and decoding one, and the same in every variant that is traced.
class LoadTrace {
 public:
  struct Snapshot {
    int64_t samples = 0;
    std::array<int64_t, 4> decoded{};  // by ImageFormat (jpeg, bmp, raw), then unrecognised
    int64_t resized = 0;
    int64_t bytes_read = 0;
    std::set<std::string> files;        // distinct files the samples' bytes came from
    std::set<std::thread::id> threads;  // distinct threads that produced samples
    int64_t Decoded(ImageFormat f) const { return decoded[static_cast<size_t>(f)]; }
  };

  void Reset();
  void Record(const Sample& sample, std::optional<ImageFormat> format, bool resized);
  Snapshot Get() const;

 private:
  mutable std::mutex mu_;
  Snapshot s_;
};

struct DatasetOptions {
  uint64_t seed = 0;
  int64_t epoch = 0;
  int64_t resize = 0;  // resize to resize x resize before augmenting; 0 = as stored
  AugmentOptions augment;
  std::shared_ptr<LoadTrace> trace;  // when set, get() records into it
};

class ImageDataset : public torch::data::datasets::Dataset<ImageDataset> {
 public:
  ImageDataset(std::shared_ptr<const SampleStore> store, DatasetOptions options);

  // Read, decode, (resize,) augment: data float {3, h, w}, target int64 scalar.
  torch::data::Example<> get(size_t index) override;
  c10::optional<size_t> size() const override { return store_->size(); }

  // The same dataset, augmenting as in `epoch`.
  ImageDataset ForEpoch(int64_t epoch) const;
  const SampleStore& store() const { return *store_; }

 private:
  std::shared_ptr<const SampleStore> store_;
  DatasetOptions options_;
};

struct LoaderOptions {
  size_t batch_size = 64;
  size_t workers = 0;  // DataLoader worker threads; 0 loads in the calling thread
};

// One epoch, sequential order, batches collated with Stack, ordering enforced.
// Returns the number of samples delivered (always the dataset's size, else it throws).
int64_t RunEpoch(const ImageDataset& dataset, const LoaderOptions& options,
                 const std::function<void(torch::data::Example<>&)>& consume);

// What an epoch delivered, compact enough to keep and to compare bitwise between
// variants: the first and last batches whole, and for every sample its label and a
// position-weighted sum of its values (a flip or a shifted crop changes it).
class EpochDigest {
 public:
  void Add(const torch::data::Example<>& batch);
  // {first batch data, last batch data, per-sample sums (double), labels (int64)}
  std::vector<torch::Tensor> Tensors() const;
  int64_t samples() const { return samples_; }

 private:
  torch::Tensor first_, last_, weights_;
  std::vector<torch::Tensor> sums_, labels_;
  int64_t samples_ = 0;
};

}  // namespace trickbench::data
