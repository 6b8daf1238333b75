// loader_workers (A2, B): DataLoader worker threads, swept 0, 1, 2, 4 (and 4 x GPUs).
//
// One run is one epoch over a JPEG image set (page cache warm: this measures decode and
// augmentation parallelism, not storage) through torch::data's DataLoader with N
// workers, ordering enforced. Augmentation is seeded per sample from (seed, epoch,
// index), so every worker count must deliver bitwise the same batches in the same
// order: the harness compares each sweep point with workers_0.
//
// Memory: LibTorch's DataLoader workers are plain threads that do not inherit the
// memory reporter's thread-local state, so the harness's peak_bytes misses what they
// allocate (decoded images, collated batches). The counters add the process's peak RSS
// growth during an epoch (VmHWM after a reset via /proc/self/clear_refs), which does
// see them, malloc's per-thread arenas included.
#include "data/dataset.h"
#include "data/image_set.h"
#include "data/process_memory.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"

namespace {

using namespace trickbench::data;

constexpr int64_t kImages = 256;

class LoaderWorkers : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Setting& s) override {
    dir_ = std::make_unique<TempDir>(DefaultDataRoot(), "tb_loader_workers");
    store_ = std::make_shared<FileStore>(FileStore::Write(
        dir_->path(),
        EncodeAll(MakeSyntheticImages({.count = kImages, .height = 64, .width = 64}),
                  ImageFormat::kJpeg),
        ImageFormat::kJpeg));
    dataset_ = std::make_unique<ImageDataset>(
        store_, DatasetOptions{.seed = trickbench::HarnessRng()(), .augment = {.crop = 56}});
  }

  void Epoch(size_t workers) {
    workers_ = workers;
    digest_ = EpochDigest();
    const int64_t rss_before = CurrentRssBytes();
    const bool reset = ResetPeakRss();
    RunEpoch(dataset_->ForEpoch(epoch_++), {.batch_size = 64, .workers = workers},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
    if (reset && rss_before > 0) {
      rss_growth_ = std::max(rss_growth_, PeakRssBytes() - rss_before);
      rss_measured_ = true;
    }
  }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  std::map<std::string, double> Counters(const std::string& variant) override {
    // Present only when true: Google Benchmark 1.7.1 writes the spread of an all-zero
    // counter as nan, which its JSON cannot carry.
    std::map<std::string, double> c;
    // The worker count is what this trick varies, so it is the one trick allowed past the
    // intra-op budget: each worker's ops use the budget's intra-op threads (LibTorch
    // initialises a new thread's count from the process's), and the total says how far
    // past the budget a sweep point goes.
    c["thread_budget"] = at::get_num_threads();
    c["threads_total"] = static_cast<double>(workers_ + 1) * at::get_num_threads();
    if (workers_ > 0) {
      c["workers"] = static_cast<double>(workers_);
      // The harness's peak_bytes misses the workers' allocations (see the file comment).
      c["worker_allocations_unmetered"] = 1;
    }
    if (rss_measured_ && rss_growth_ > 0) c["peak_rss_growth_bytes"] = static_cast<double>(rss_growth_);
    return c;
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  std::unique_ptr<TempDir> dir_;
  std::shared_ptr<FileStore> store_;
  std::unique_ptr<ImageDataset> dataset_;
  size_t workers_ = 0;
  int64_t epoch_ = 0;
  int64_t rss_growth_ = 0;
  bool rss_measured_ = false;
  EpochDigest digest_;
};

trickbench::TrickDef::Body WithWorkers(size_t n) {
  return [n](trickbench::Trick& t) { static_cast<LoaderWorkers&>(t).Epoch(n); };
}

}  // namespace

TRICKBENCH_TRICK(loader_workers, LoaderWorkers)
    .Category("Data loading")
    .Source("A2, B")
    .Claim("best at 4×num_GPU; memory grows with workers")
    .Expect(trickbench::claim::MoreMemory())
    .Expect(trickbench::claim::Faster().ForVariant("workers_4").OnCuda("4 x num_GPU workers, feeding one GPU"))
    .MutationUndetected("workers_1", "Inactive() does not check which threads produced the samples")
    .MutationUndetected("workers_2", "Inactive() does not check which threads produced the samples")
    .MutationUndetected("workers_4", "Inactive() does not check which threads produced the samples")
    .AddVariant("workers_0", WithWorkers(0))
    .AddVariant("workers_1", WithWorkers(1))
    .AddVariant("workers_2", WithWorkers(2))
    .AddVariant("workers_4", WithWorkers(4))
    .Reproduce("workers_4")
    .Bitwise();

namespace {
// The article's suggestion, 4 x the GPUs, where there are GPUs and it is not already swept.
[[maybe_unused]] const bool kGpuSweepPoint = [] {
  const size_t gpus = torch::cuda::device_count();
  if (gpus > 1) trickbench::FindTrick("loader_workers")->AddVariant(
      "workers_" + std::to_string(4 * gpus), WithWorkers(4 * gpus));
  return true;
}();
}  // namespace
