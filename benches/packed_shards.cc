// packed_shards (B): one file per sample vs one packed file read sequentially.
//
// The same JPEG samples stored three ways in the data dir ($TRICKBENCH_DATA_DIR, else
// $TMPDIR or /tmp): one file per sample (an open, a read and a close each), an LMDB
// database (the store users know), and one trickbench shard (records back to back
// plus an index: one open, then a pread per sample, in file order). One run is one
// epoch through torch::data's DataLoader, decode and seeded augmentation included.
//
// I/O honesty: before every run of any variant, all three stores are evicted from the
// page cache (posix_fadvise(DONTNEED), after one fsync in SetUp), so each variant reads cold and pays the
// same eviction cost. All three live on the same device (the data dir): the counters
// say so, and whether the eviction worked (resident fraction after it; tmpfs cannot be
// evicted; absent = 0), and the eviction's time. Directory entries and inodes stay cached, so opening the small files is
// cheaper than on a truly cold machine.
//
// Every store delivers the same bytes, so the data must be bitwise equal.
#include <chrono>
#include <iostream>

#include "data/dataset.h"
#include "data/image_set.h"
#include "data/lmdb_store.h"
#include "data/page_cache.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"

namespace {

using namespace trickbench::data;

constexpr int64_t kImages = 512;

class PackedShards : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Setting& s) override {
    const auto samples =
        EncodeAll(MakeSyntheticImages({.count = kImages, .height = 32, .width = 32}),
                  ImageFormat::kJpeg);
    dir_ = std::make_unique<TempDir>(DefaultDataRoot(), "tb_packed_shards");
    files_ = std::make_shared<FileStore>(FileStore::Write(dir_->path() + "/files", samples,
                                                          ImageFormat::kJpeg));
    lmdb_dir_ = dir_->path() + "/train.lmdb";
    LmdbStore::Write(lmdb_dir_, samples);
    ShardStore::Write(dir_->path() + "/train.shard", samples);
    shard_ = std::make_shared<ShardStore>(dir_->path() + "/train.shard");
    all_files_ = files_->Files();
    all_files_.push_back(lmdb_dir_ + "/data.mdb");
    all_files_.push_back(dir_->path() + "/train.shard");
    options_ = {.seed = trickbench::HarnessRng()(), .augment = {.crop = 28}};
    SyncToDisk(all_files_);  // once: afterwards the files stay clean and evictable
  }

  void Files() { Epoch([this] { return files_; }); }
  // LMDB reads through a shared mmap, and the kernel does not drop mapped pages on
  // fadvise(DONTNEED): the database is opened after the eviction and closed after the
  // epoch (mdb_env_open costs well under a millisecond), so it too is read cold.
  void Lmdb() {
    Epoch([this] { return std::make_shared<LmdbStore>(lmdb_dir_); });
  }
  void Shard() { Epoch([this] { return shard_; }); }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  std::map<std::string, double> Counters(const std::string& variant) override {
    const bool in_ram = IsRamBacked(dir_->path());
    if (variant == "files" && (in_ram || resident_after_evict_ > 0.5)) {
      std::cerr << "packed_shards: WARNING: " << dir_->path()
                << " could not be evicted from the page cache: this measures RAM, not "
                   "storage (set TRICKBENCH_DATA_DIR to a disk)\n";
    }
    // Flags appear only when true, fractions only when non-zero: Google Benchmark 1.7.1
    // writes the spread of an all-zero counter as nan, which its JSON cannot carry.
    std::map<std::string, double> c = {
        {"evict_method_posix_fadvise_dontneed", 1},
        {"evicted_bytes_per_run", static_cast<double>(evicted_bytes_)},
        {"evict_seconds_per_run", evict_seconds_},
        {"same_device_all_variants", 1},
        {"files_opened_per_run", static_cast<double>(files_opened_)},
    };
    if (resident_after_evict_ > 0) c["resident_fraction_after_evict"] = resident_after_evict_;
    if (resident_after_evict_ >= 0.05) c["page_cache_not_evicted"] = 1;
    if (in_ram) c["data_dir_is_ram_backed"] = 1;
    return c;
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  void Epoch(const std::function<std::shared_ptr<SampleStore>()>& open) {
    const auto start = std::chrono::steady_clock::now();
    evicted_bytes_ = EvictFromPageCache(all_files_).bytes;
    evict_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::shared_ptr<SampleStore> store = open();
    resident_after_evict_ = ResidentFraction(store->Files());
    files_opened_ = store == files_ ? kImages : 1;
    digest_ = EpochDigest();
    RunEpoch(ImageDataset(store, options_).ForEpoch(epoch_++), {.batch_size = 64},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
  }

  std::unique_ptr<TempDir> dir_;  // destroyed last: the stores close their files first
  std::shared_ptr<SampleStore> files_, shard_;
  std::string lmdb_dir_;
  std::vector<std::string> all_files_;
  DatasetOptions options_;
  int64_t epoch_ = 0;
  int64_t evicted_bytes_ = 0;
  double evict_seconds_ = 0;
  int64_t files_opened_ = 0;
  double resident_after_evict_ = 0;
  EpochDigest digest_;
};

}  // namespace

TRICKBENCH_TRICK(packed_shards, PackedShards)
    .Category("Data loading")
    .Source("B")
    .Claim("fewer opens/seeks, faster")
    .Expect(trickbench::claim::Faster())
    .Expect(trickbench::claim::Fewer("files_opened_per_run"))
    .MutationUndetected("lmdb", "Inactive() checks the set-up (the store), not how many files the body opened")
    .MutationUndetected("shard", "Inactive() checks the set-up (the store), not how many files the body opened")
    .Variant("files", &PackedShards::Files)
    .Variant("lmdb", &PackedShards::Lmdb)
    .Variant("shard", &PackedShards::Shard)
    .Bitwise();
