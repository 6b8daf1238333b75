#include <torch/data.h>
#include <torch/utils.h>

#include "determinism/seeded_dataset.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace trickbench {
namespace {

constexpr int64_t kSamples = 64;
constexpr size_t kBatch = 8;

LabeledTensorDataset Base() {
  torch::manual_seed(0);
  return LabeledTensorDataset(torch::randn({kSamples, 16}), torch::arange(kSamples));
}

TEST(PerSampleSeeded, SameDataForAnyNumberOfWorkers) {
  const PerSampleSeeded<LabeledTensorDataset> data(Base(), UniformNoiseAugmentation, 42);
  const auto reference = LoadInOrder(data, 0, kBatch);
  EXPECT_FALSE(torch::equal(reference.data, Base().get(0).data.unsqueeze(0)))
      << "augmentation did nothing";
  for (size_t workers : {1, 2, 8}) {
    const auto got = LoadInOrder(data, workers, kBatch);
    EXPECT_TRUE(torch::equal(got.data, reference.data)) << workers << " workers";
    EXPECT_TRUE(torch::equal(got.target, reference.target)) << workers << " workers";
  }
}

TEST(PerSampleSeeded, DiffersBetweenEpochsSamplesAndSeeds) {
  // Same values in every sample, so any difference is the augmentation's.
  LabeledTensorDataset flat(torch::zeros({4, 16}), torch::arange(4));
  const PerSampleSeeded<LabeledTensorDataset> data(flat, UniformNoiseAugmentation, 42);
  auto e0 = data.WithEpoch(0), e1 = data.WithEpoch(1);
  const auto s0 = e0.get(0).data;
  EXPECT_FALSE(torch::equal(s0, e0.get(1).data)) << "two samples got the same noise";
  EXPECT_FALSE(torch::equal(s0, e1.get(0).data)) << "two epochs got the same noise";
  PerSampleSeeded<LabeledTensorDataset> other_seed(flat, UniformNoiseAugmentation, 43);
  EXPECT_FALSE(torch::equal(s0, other_seed.get(0).data));
  EXPECT_TRUE(torch::equal(s0, e0.get(0).data)) << "the same sample twice differs";
  EXPECT_LE(s0.abs().max().item<double>(), kUniformNoiseAmplitude);
}

TEST(PerSampleSeeded, LeavesTheGlobalGeneratorAlone) {
  const PerSampleSeeded<LabeledTensorDataset> data(Base(), UniformNoiseAugmentation, 1);
  torch::manual_seed(5);
  LoadInOrder(data, 2, kBatch);
  const auto after = torch::rand({4});
  torch::manual_seed(5);
  EXPECT_TRUE(torch::equal(after, torch::rand({4})));
}

// Forces one legitimate schedule of two workers: sample 0 (worker A, batch 0) is
// augmented first; then sample kBatch (worker B, batch 1); only then does A go on to
// sample 1. With the global generator, sample 1 then draws after sample kBatch instead
// of before, which a sequential run never does. Without this the interleaving, and
// therefore whether the naive test sees the difference, would be up to the scheduler:
// B waits for sample 0 too, since a worker A slow to start would otherwise let sample
// kBatch draw first (that happened once with 4 tests running on 2 cores).
template <typename Inner>
class ForcedInterleaving
    : public torch::data::datasets::Dataset<ForcedInterleaving<Inner>, torch::data::Example<>> {
 public:
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool first_sample_drawn = false;
    bool second_batch_started = false;
    bool timed_out = false;
  };
  ForcedInterleaving(Inner inner, std::shared_ptr<Shared> shared)
      : inner_(std::move(inner)), shared_(std::move(shared)) {}

  torch::data::Example<> get(size_t index) override {
    if (index == kBatch) Wait([&] { return shared_->first_sample_drawn; });
    auto example = inner_.get(index);
    if (index == 0) {
      Signal(&shared_->first_sample_drawn);
      Wait([&] { return shared_->second_batch_started; });
    } else if (index == kBatch) {
      Signal(&shared_->second_batch_started);
    }
    return example;
  }
  c10::optional<size_t> size() const override { return inner_.size(); }

 private:
  template <typename Pred>
  void Wait(Pred ready) {
    std::unique_lock<std::mutex> lock(shared_->mu);
    if (!shared_->cv.wait_for(lock, std::chrono::seconds(30), ready)) shared_->timed_out = true;
  }
  void Signal(bool* flag) {
    std::lock_guard<std::mutex> lock(shared_->mu);
    *flag = true;
    shared_->cv.notify_all();
  }

  Inner inner_;
  std::shared_ptr<Shared> shared_;
};

template <typename Augmented>
torch::Tensor LoadInterleaved(const Augmented& data) {
  auto shared = std::make_shared<typename ForcedInterleaving<Augmented>::Shared>();
  const auto got = LoadInOrder(ForcedInterleaving<Augmented>(data, shared), 2, kBatch);
  EXPECT_FALSE(shared->timed_out) << "the two workers did not both start (batch 0, batch 1)";
  return got.data;
}

TEST(GlobalGeneratorAugmented, NotReproducibleAcrossWorkerCounts) {
  const GlobalGeneratorAugmented<LabeledTensorDataset> naive(Base(), UniformNoiseAugmentation);
  torch::manual_seed(7);
  const auto sequential = LoadInOrder(naive, 0, kBatch).data;
  torch::manual_seed(7);
  const auto one_worker = LoadInOrder(naive, 1, kBatch).data;
  EXPECT_TRUE(torch::equal(sequential, one_worker)) << "one worker draws in sequence";
  torch::manual_seed(7);
  const auto two_workers = LoadInterleaved(naive);
  EXPECT_FALSE(torch::equal(sequential, two_workers))
      << "the global generator gave the same data to 2 interleaved workers";
  // The same draws went to other samples: the set of values is the same, the
  // assignment is not (samples 1..7 and 8 swapped draws).
  EXPECT_TRUE(torch::equal(sequential[0], two_workers[0]));
  EXPECT_FALSE(torch::equal(sequential[1], two_workers[1]));
}

TEST(PerSampleSeeded, UnaffectedByTheSameForcedInterleaving) {
  const PerSampleSeeded<LabeledTensorDataset> data(Base(), UniformNoiseAugmentation, 42);
  EXPECT_TRUE(torch::equal(LoadInterleaved(data), LoadInOrder(data, 0, kBatch).data));
}

TEST(LabeledTensorDataset, RejectsMismatchedLengths) {
  EXPECT_THROW(LabeledTensorDataset(torch::zeros({3, 2}), torch::zeros({4})), c10::Error);
}

}  // namespace
}  // namespace trickbench
