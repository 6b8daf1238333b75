// worker_seeding (B): random augmentation in DataLoader workers, from the shared global
// generator vs from a generator private to each sample.
//
// One epoch of a 512-sample dataset through a LibTorch DataLoader with 2 worker
// threads (this machine has 2 cores), batches of 32, each sample augmented with
// uniform noise:
//   global_generator      the naive way: the augmentation draws from the global CPU
//                         generator, which the worker threads share, so which numbers a
//                         sample gets depends on the schedule (and the worker count);
//   per_sample_generator  trickbench::PerSampleSeeded: a generator per sample seeded
//                         from (seed, epoch, index), the same data for any worker count.
// The time is the cost of making a generator per sample (a few microseconds each).
//
// Tolerance: the augmentation is random by design, so the two variants draw different
// noise; both add at most kUniformNoiseAmplitude (0.05) to each value, so the loaded
// data agree within atol 0.1 (+1e-6 for float rounding). A wrong sample or order
// (values ~1 apart) still fails. Memory: the harness's meter counts the workers'
// allocations too (it is process-wide, harness/memory.h).
#include <torch/data.h>

#include "determinism/seed.h"
#include "determinism/seeded_dataset.h"
#include "harness/trick.h"

namespace {

constexpr int64_t kSamples = 512;
constexpr int64_t kFeatures = 256;
constexpr size_t kBatch = 32;
constexpr size_t kWorkers = 2;

class WorkerSeeding : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    base_ = std::make_unique<trickbench::LabeledTensorDataset>(torch::randn({kSamples, kFeatures}),
                                                               torch::arange(kSamples));
    data_seed_ = trickbench::HarnessRng()();
  }

  void GlobalGenerator() {
    Load(trickbench::GlobalGeneratorAugmented<trickbench::LabeledTensorDataset>(
        *base_, trickbench::UniformNoiseAugmentation));
  }

  void PerSampleGenerator() { Load(PerSample()); }

  trickbench::Tensors Result() override { return {loaded_.data, loaded_.target}; }

  std::string Inactive(const std::string& variant) override {
    if (variant == "global_generator" && !advanced_global_) {
      return "the global generator did not advance: the augmentation did not draw from it";
    }
    if (variant == "per_sample_generator") {
      if (advanced_global_) return "the per-sample loader drew from the global generator";
      const auto sequential = trickbench::LoadInOrder(PerSample(), 0, kBatch);
      if (!torch::equal(sequential.data, loaded_.data)) {
        return "2 workers loaded other data than 0 workers";
      }
    }
    return "";
  }

  int64_t ItemsPerRun() const override { return kSamples; }

 private:
  trickbench::PerSampleSeeded<trickbench::LabeledTensorDataset> PerSample() const {
    return {*base_, trickbench::UniformNoiseAugmentation, data_seed_, /*epoch=*/0};
  }

  template <typename Dataset>
  void Load(Dataset dataset) {
    auto& gen = at::globalContext().defaultGenerator(c10::kCPU);
    const torch::Tensor before = gen.get_state();
    loaded_ = trickbench::LoadInOrder(std::move(dataset), kWorkers, kBatch);
    advanced_global_ = !torch::equal(before, gen.get_state());
  }

  std::unique_ptr<trickbench::LabeledTensorDataset> base_;
  uint64_t data_seed_ = 0;
  torch::data::Example<> loaded_;
  bool advanced_global_ = false;
};

}  // namespace

TRICKBENCH_TRICK(worker_seeding, WorkerSeeding)
    .Category("Determinism")
    .Source("B")
    .Claim("avoids duplicated/irreproducible worker randomness")
    .Variant("global_generator", &WorkerSeeding::GlobalGenerator)
    .Variant("per_sample_generator", &WorkerSeeding::PerSampleGenerator)
    .Tolerance(0, 0.1 + 1e-6);
