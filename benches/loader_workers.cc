// loader_workers (A2, B): DataLoader worker threads, swept 0, 1, 2, 4 (and 4 x GPUs).
//
// One run is one epoch over a JPEG image set (page cache warm: this measures decode and
// augmentation parallelism, not storage) through torch::data's DataLoader with N
// workers, ordering enforced. Augmentation is seeded per sample from (seed, epoch,
// index), so every worker count must deliver bitwise the same batches in the same
// order: the harness compares each sweep point with workers_0.
//
// Memory: the claim "memory grows with workers" is graded on the harness's peak_bytes,
// which counts every thread's tensor allocations (harness/memory.h: the workers' decoded
// images and collated batches in flight). Measured here: 14.5 MB for 0 and 1 workers,
// 16.9 MB for 2, 24.2 MB for 4. The counters add the process's peak RSS growth during an
// epoch (VmHWM after a reset via /proc/self/clear_refs), which also sees malloc's
// per-thread arenas and stacks, but is too coarse to grade on: it read 3.2, 13.7, 6.2 and
// 11.5 MB for the same four in one run.
//
// Evidence that a sweep point ran its workers: the run's LoadTrace names the threads
// that produced samples: only the caller for 0 workers; for N, never the caller and at
// most N threads. Not exactly N: the 4 batches of an epoch go to whichever worker pops
// them first, so a worker the scheduler wakes late may get none (2 cores here); the
// count is the counter producer_threads.
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/data.h>

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
  void SetUp(const trickbench::Instance& s) override {
    // The run's one copy of the images (common/shared_data.h).
    store_ = std::make_shared<FileStore>(
        SharedImageFiles({.count = kImages, .height = 64, .width = 64, .seed = kSharedImageSeed},
                         ImageFormat::kJpeg));
    dataset_ = std::make_unique<ImageDataset>(
        store_, DatasetOptions{
                    .seed = trickbench::HarnessRng()(), .augment = {.crop = 56}, .trace = trace_});
  }

  void Epoch(size_t workers) {
    trace_->Reset();
    workers_ = workers;
    caller_ = std::this_thread::get_id();
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

  std::string Inactive(const std::string& variant) override {
    const size_t want = std::stoul(variant.substr(variant.find('_') + 1));
    const std::set<std::thread::id> threads = trace_->Get().threads;
    const bool on_caller = threads.count(caller_) > 0;
    if (want == 0 && (threads.size() != 1 || !on_caller)) {
      return "samples were produced on " + std::to_string(threads.size()) +
             " threads, not on the calling thread alone";
    }
    if (want > 0 && (on_caller || threads.empty() || threads.size() > want)) {
      return "samples were produced on " + std::to_string(threads.size()) + " threads" +
             (on_caller ? ", the calling thread among them" : "") + ", not by " +
             std::to_string(want) + " worker threads";
    }
    return "";
  }

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
      c["producer_threads"] = static_cast<double>(trace_->Get().threads.size());
    }
    // Present for every sweep point, workers_0 included, so the claim is graded on both
    // sides: at least one page, the unit RSS is counted in (an all-zero counter would be
    // nan, see above). Absent only where the kernel refuses the reset.
    if (rss_measured_) {
      c["peak_rss_growth_bytes"] = static_cast<double>(std::max<int64_t>(rss_growth_, 4096));
    }
    return c;
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  std::shared_ptr<FileStore> store_;
  std::unique_ptr<ImageDataset> dataset_;
  size_t workers_ = 0;
  std::thread::id caller_;
  std::shared_ptr<LoadTrace> trace_ = std::make_shared<LoadTrace>();  // the last run's threads
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
    .Expect(trickbench::claim::MoreMemory().OnHost())
    .Expect(trickbench::claim::Faster()
                .ForVariant("workers_4")
                .OnCuda("4 x num_GPU workers, feeding one GPU"))
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
  if (gpus > 1)
    trickbench::FindTrick("loader_workers")
        ->AddVariant("workers_" + std::to_string(4 * gpus), WithWorkers(4 * gpus));
  return true;
}();
}  // namespace
