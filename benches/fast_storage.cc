// fast_storage (A1): read the training data from a faster storage tier.
//
// The same JPEG image set lives twice: under the configured data dir
// ($TRICKBENCH_DATA_DIR, else $TMPDIR or /tmp: usually a disk; one copy per run, written
// and fsync'd by the first instance, common/shared_data.h) and under /dev/shm (RAM-backed
// tmpfs, copied from it per instance). One run is one epoch through torch::data's DataLoader (decode,
// seeded augmentation, batches of 64) from one of the two copies.
//
// I/O honesty: every run of either variant first evicts BOTH copies from the page
// cache (posix_fadvise(DONTNEED), after the one fsync when it was written), so the disk copy is read cold and the
// eviction's own cost is the same in both variants. The baseline is inactive, and so the
// comparison invalid, with the reason, when its run did not read from the disk: the data
// dir is RAM-backed or on /dev/shm's device, the eviction left pages cached, or the
// process fetched under half the bytes it read from storage (/proc/self/io). Counters
// record the method, what was still cached right after the eviction (tmpfs cannot be
// evicted: its pages are the storage; absent = 0), the bytes fetched from storage, and
// the eviction's time (it is inside every timed run, the same in both).
// Evidence of where a run read from: its LoadTrace names the files the samples came from.
// Loader workers: 0, so the memory meter sees every allocation. Eviction drops file data only; directory entries
// and inodes stay cached.
//
// Both variants deliver the same tensors in the same order: compared bitwise.
#include <torch/data.h>

#include <chrono>
#include <filesystem>

#include "data/dataset.h"
#include "data/image_set.h"
#include "data/page_cache.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"

namespace {

using namespace trickbench::data;

constexpr int64_t kImages = 512;

class FastStorage : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    // The run's one copy on the data dir (written and fsync'd once: its pages are clean
    // and evictable); the RAM copy is this instance's own, copied from it.
    disk_dir_ =
        SharedImageFiles({.count = kImages, .height = 64, .width = 64, .seed = kSharedImageSeed},
                         ImageFormat::kJpeg);
    ram_dir_ = std::make_unique<TempDir>("/dev/shm", "tb_fast_storage");
    std::filesystem::copy(disk_dir_, ram_dir_->path());
    disk_ = std::make_shared<FileStore>(disk_dir_);
    ram_ = std::make_shared<FileStore>(ram_dir_->path());
    all_files_ = disk_->Files();
    for (const auto& f : ram_->Files()) all_files_.push_back(f);
    options_ = {.seed = trickbench::HarnessRng()(), .augment = {.crop = 56}, .trace = trace_};
  }

  void EvictedDisk() { Epoch(disk_); }
  void RamDir() { Epoch(ram_); }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  std::string Inactive(const std::string& variant) override {
    const bool ram = variant == "ram_dir";
    const std::string dir = ram ? ram_dir_->path() : disk_dir_;
    const LoadTrace::Snapshot t = trace_->Get();
    for (const std::string& f : t.files) {
      if (f.rfind(dir + "/", 0) != 0) return "the run read " + f + ", outside " + dir;
    }
    if (t.files.size() != static_cast<size_t>(kImages)) {
      return "the run read " + std::to_string(t.files.size()) + " files of " + dir + ", not " +
             std::to_string(kImages);
    }
    if (ram) return IsRamBacked(dir) ? "" : dir + " is not RAM-backed (tmpfs/ramfs)";
    if (DeviceOf(dir) == DeviceOf(ram_dir_->path())) {
      return "the data dir " + dir + " is on the same device as " + ram_dir_->path();
    }
    return WhyNotReadFromStorage(dir, resident_after_evict_, fetched_bytes_, t.bytes_read);
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    // Flags appear only when true, fractions only when non-zero: Google Benchmark 1.7.1
    // writes the spread of an all-zero counter as nan, which its JSON cannot carry.
    std::map<std::string, double> c = {
        {"evict_method_posix_fadvise_dontneed", 1},
        {"evicted_bytes_per_run", static_cast<double>(evicted_bytes_)},
        {"evict_seconds_per_run", evict_seconds_},
    };
    if (resident_after_evict_ > 0) c["resident_fraction_after_evict"] = resident_after_evict_;
    if (variant == "evicted_disk" && resident_after_evict_ >= 0.05) c["page_cache_not_evicted"] = 1;
    if (fetched_bytes_ > 0) c["storage_read_bytes_per_run"] = static_cast<double>(fetched_bytes_);
    if (IsRamBacked(disk_dir_)) c["data_dir_is_ram_backed"] = 1;
    if (DeviceOf(disk_dir_) == DeviceOf(ram_dir_->path())) c["same_device_both_variants"] = 1;
    return c;
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  void Epoch(const std::shared_ptr<FileStore>& store) {
    trace_->Reset();
    const auto start = std::chrono::steady_clock::now();
    evicted_bytes_ = EvictFromPageCache(all_files_).bytes;
    evict_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    resident_after_evict_ = ResidentFraction(store->Files());
    const int64_t fetched_before = StorageReadBytes();
    digest_ = EpochDigest();
    RunEpoch(ImageDataset(store, options_).ForEpoch(epoch_++), {.batch_size = 64},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
    fetched_bytes_ = fetched_before < 0 ? -1 : StorageReadBytes() - fetched_before;
  }

  // Declared first, destroyed last: the folders outlive the stores reading them.
  std::string disk_dir_;  // the run's shared copy (common/shared_data.h)
  std::unique_ptr<TempDir> ram_dir_;
  std::shared_ptr<FileStore> disk_, ram_;
  std::vector<std::string> all_files_;
  DatasetOptions options_;
  int64_t epoch_ = 0;
  int64_t evicted_bytes_ = 0;
  double evict_seconds_ = 0;
  double resident_after_evict_ = 0;
  int64_t fetched_bytes_ = -1;  // from storage during the last run; -1: not accounted
  std::shared_ptr<LoadTrace> trace_ = std::make_shared<LoadTrace>();  // the last run's reads
  EpochDigest digest_;
};

}  // namespace

TRICKBENCH_TRICK(fast_storage, FastStorage)
    .Category("Data loading")
    .Source("A1")
    .Claim("faster I/O tier = faster epoch")
    .Expect(trickbench::claim::Faster())
    .HostSide("file reads and decoding run on the host; no device is involved")
    .Variant("evicted_disk", &FastStorage::EvictedDisk)
    .Variant("ram_dir", &FastStorage::RamDir)
    .Bitwise();
