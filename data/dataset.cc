#include "data/dataset.h"

#include <torch/data.h>

#include <random>
#include <stdexcept>

#include "data/codec.h"

namespace trickbench::data {

uint64_t SampleSeed(uint64_t seed, int64_t epoch, uint64_t index) {
  auto mix = [](uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  return mix(mix(mix(seed) ^ static_cast<uint64_t>(epoch)) ^ index);
}

torch::Tensor Augment(const torch::Tensor& image, uint64_t sample_seed,
                      const AugmentOptions& options) {
  std::mt19937_64 rng(sample_seed);
  const int64_t h = image.size(0), w = image.size(1);
  torch::Tensor x = image;
  if (options.crop > 0) {
    if (options.crop > h || options.crop > w) {
      throw std::invalid_argument("crop " + std::to_string(options.crop) + " is larger than a " +
                                  std::to_string(h) + "x" + std::to_string(w) + " image");
    }
    const int64_t top = std::uniform_int_distribution<int64_t>(0, h - options.crop)(rng);
    const int64_t left = std::uniform_int_distribution<int64_t>(0, w - options.crop)(rng);
    x = x.slice(0, top, top + options.crop).slice(1, left, left + options.crop);
  }
  if (options.flip && std::bernoulli_distribution(0.5)(rng)) x = x.flip({1});
  const double factor =
      std::uniform_real_distribution<double>(1 - options.brightness, 1 + options.brightness)(rng);
  return x.permute({2, 0, 1}).to(torch::kFloat).mul_(static_cast<float>(factor / 255.0));
}

void LoadTrace::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  s_ = Snapshot();
}

void LoadTrace::Record(const Sample& sample, std::optional<ImageFormat> format, bool resized) {
  const std::thread::id me = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(mu_);
  ++s_.samples;
  ++s_.decoded[format ? static_cast<size_t>(*format) : s_.decoded.size() - 1];
  s_.resized += resized;
  s_.bytes_read += static_cast<int64_t>(sample.bytes.size());
  s_.files.insert(sample.file);
  s_.threads.insert(me);
}

LoadTrace::Snapshot LoadTrace::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return s_;
}

ImageDataset::ImageDataset(std::shared_ptr<const SampleStore> store, DatasetOptions options)
    : store_(std::move(store)), options_(options) {}

torch::data::Example<> ImageDataset::get(size_t index) {
  Sample sample = store_->Read(index);
  torch::Tensor image = DecodeImage(sample.bytes, sample.name);
  if (options_.resize > 0) image = ResizeImage(image, options_.resize, options_.resize);
  torch::Tensor data =
      Augment(image, SampleSeed(options_.seed, options_.epoch, index), options_.augment);
  if (options_.trace)
    options_.trace->Record(sample, SniffFormat(sample.bytes), options_.resize > 0);
  return {data, torch::tensor(sample.label, torch::kLong)};
}

ImageDataset ImageDataset::ForEpoch(int64_t epoch) const {
  ImageDataset copy = *this;
  copy.options_.epoch = epoch;
  return copy;
}

int64_t RunEpoch(const ImageDataset& dataset, const LoaderOptions& options,
                 const std::function<void(torch::data::Example<>&)>& consume) {
  const size_t expected = dataset.size().value();
  ImageDataset copy = dataset;  // map() is for lvalues; the copy shares the store
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      copy.map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(options.batch_size)
          .workers(options.workers)
          .enforce_ordering(true));
  int64_t delivered = 0;
  for (torch::data::Example<>& batch : *loader) {
    delivered += batch.data.size(0);
    consume(batch);
  }
  if (delivered != static_cast<int64_t>(expected)) {
    throw std::runtime_error("epoch delivered " + std::to_string(delivered) + " samples of " +
                             std::to_string(expected));
  }
  return delivered;
}

void EpochDigest::Add(const torch::data::Example<>& batch) {
  const torch::Tensor flat = batch.data.reshape({batch.data.size(0), -1}).to(torch::kDouble);
  if (!weights_.defined() || weights_.size(0) != flat.size(1)) {
    weights_ = torch::linspace(1, 2, flat.size(1),
                               torch::TensorOptions(torch::kDouble).device(flat.device()));
  }
  if (!first_.defined()) first_ = batch.data;
  last_ = batch.data;
  sums_.push_back((flat * weights_).sum(1));
  labels_.push_back(batch.target.to(torch::kLong));
  samples_ += batch.data.size(0);
}

std::vector<torch::Tensor> EpochDigest::Tensors() const {
  if (samples_ == 0) return {torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  return {first_, last_, torch::cat(sums_), torch::cat(labels_)};
}

}  // namespace trickbench::data
