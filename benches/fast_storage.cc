// fast_storage (A1): read the training data from a faster storage tier.
//
// The same JPEG image set is written twice: under the configured data dir
// ($TRICKBENCH_DATA_DIR, else $TMPDIR or /tmp: usually a disk) and under /dev/shm
// (RAM-backed tmpfs). One run is one epoch through torch::data's DataLoader (decode,
// seeded augmentation, batches of 64) from one of the two copies.
//
// I/O honesty: every run of either variant first evicts BOTH copies from the page
// cache (posix_fadvise(DONTNEED), after one fsync in SetUp), so the disk copy is read cold and the
// eviction's own cost is the same in both variants. Counters record the method, how
// much of the variant's files was still cached after the eviction (tmpfs cannot be
// evicted: its pages are the storage; absent = 0), page_cache_not_evicted when the
// disk copy stayed cached, data_dir_is_ram_backed, and same_device_both_variants: with
// any of the last three the comparison measures nothing, and the counters say so. The
// eviction's time is a counter too (it is inside every timed run, the same in both).
// Loader workers: 0, so the memory meter sees every allocation. Eviction drops file data only; directory entries
// and inodes stay cached.
//
// Both variants deliver the same tensors in the same order: compared bitwise.
#include <chrono>
#include <iostream>

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
  void SetUp(const trickbench::Setting& s) override {
    const auto samples =
        EncodeAll(MakeSyntheticImages({.count = kImages, .height = 64, .width = 64}),
                  ImageFormat::kJpeg);
    disk_dir_ = std::make_unique<TempDir>(DefaultDataRoot(), "tb_fast_storage");
    ram_dir_ = std::make_unique<TempDir>("/dev/shm", "tb_fast_storage");
    disk_ = std::make_shared<FileStore>(FileStore::Write(disk_dir_->path(), samples, ImageFormat::kJpeg));
    ram_ = std::make_shared<FileStore>(FileStore::Write(ram_dir_->path(), samples, ImageFormat::kJpeg));
    all_files_ = disk_->Files();
    for (const auto& f : ram_->Files()) all_files_.push_back(f);
    options_ = {.seed = trickbench::HarnessRng()(), .augment = {.crop = 56}};
    SyncToDisk(all_files_);  // once: afterwards the files stay clean and evictable
  }

  void EvictedDisk() { Epoch(disk_); }
  void RamDir() { Epoch(ram_); }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  std::string Inactive(const std::string& variant) override {
    if (variant == "ram_dir" && !IsRamBacked(ram_dir_->path())) {
      return ram_dir_->path() + " is not RAM-backed (tmpfs/ramfs)";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const bool data_dir_in_ram = IsRamBacked(disk_dir_->path());
    const bool same_device = DeviceOf(disk_dir_->path()) == DeviceOf(ram_dir_->path());
    if (variant == "evicted_disk" && (data_dir_in_ram || resident_after_evict_ > 0.5)) {
      std::cerr << "fast_storage: WARNING: the data dir " << disk_dir_->path()
                << (data_dir_in_ram ? " is RAM-backed" : " stayed in the page cache")
                << ": this baseline measures RAM, not storage (set TRICKBENCH_DATA_DIR)\n";
    }
    // Flags appear only when true, fractions only when non-zero: Google Benchmark 1.7.1
    // writes the spread of an all-zero counter as nan, which its JSON cannot carry.
    std::map<std::string, double> c = {
        {"evict_method_posix_fadvise_dontneed", 1},
        {"evicted_bytes_per_run", static_cast<double>(evicted_bytes_)},
        {"evict_seconds_per_run", evict_seconds_},
    };
    if (resident_after_evict_ > 0) c["resident_fraction_after_evict"] = resident_after_evict_;
    if (variant == "evicted_disk" && resident_after_evict_ >= 0.05) c["page_cache_not_evicted"] = 1;
    if (data_dir_in_ram) c["data_dir_is_ram_backed"] = 1;
    if (same_device) c["same_device_both_variants"] = 1;
    return c;
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  void Epoch(const std::shared_ptr<FileStore>& store) {
    const auto start = std::chrono::steady_clock::now();
    evicted_bytes_ = EvictFromPageCache(all_files_).bytes;
    evict_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    resident_after_evict_ = ResidentFraction(store->Files());
    digest_ = EpochDigest();
    RunEpoch(ImageDataset(store, options_).ForEpoch(epoch_++), {.batch_size = 64},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
  }

  // Declared first, destroyed last: the folders outlive the stores reading them.
  std::unique_ptr<TempDir> disk_dir_, ram_dir_;
  std::shared_ptr<FileStore> disk_, ram_;
  std::vector<std::string> all_files_;
  DatasetOptions options_;
  int64_t epoch_ = 0;
  int64_t evicted_bytes_ = 0;
  double evict_seconds_ = 0;
  double resident_after_evict_ = 0;
  EpochDigest digest_;
};

}  // namespace

TRICKBENCH_TRICK(fast_storage, FastStorage)
    .Category("Data loading")
    .Source("A1")
    .Claim("faster I/O tier = faster epoch")
    .Expect(trickbench::claim::Faster())
    .MutationUndetected("ram_dir", "Inactive() checks the set-up (where the files are), not where the body read from")
    .Variant("evicted_disk", &FastStorage::EvictedDisk)
    .Variant("ram_dir", &FastStorage::RamDir)
    .Bitwise();
