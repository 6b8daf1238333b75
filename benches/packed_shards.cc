// packed_shards (B): one file per sample vs one packed file read sequentially.
//
// The same JPEG samples stored three ways in the data dir ($TRICKBENCH_DATA_DIR, else
// $TMPDIR or /tmp): one file per sample (an open, a read and a close each), an LMDB
// database (the store users know), and one trickbench shard (records back to back
// plus an index: one open, then a pread per sample, in file order). One run is one
// epoch through torch::data's DataLoader, decode and seeded augmentation included.
//
// I/O honesty: before every run of any variant, all three stores are evicted from the
// page cache (posix_fadvise(DONTNEED), after the one fsync when the run's copy was written), so each variant reads cold and pays the
// same eviction cost. All three live on the same device (the data dir): the counters
// say so, the eviction's time, and what was still cached right after it (absent = 0).
// A run that did not read from the storage (the data dir is tmpfs, the eviction left
// pages cached, or the process fetched under half the bytes it read: /proc/self/io)
// makes its variant inactive, and so the comparison invalid, with the reason: cached
// reads would time RAM. Directory entries and inodes stay cached, so opening the small
// files is cheaper than on a truly cold machine.
//
// Evidence that a variant read its own store: the run's LoadTrace names the files the
// samples came from (every sample file, or LMDB's data.mdb, or the shard).
//
// Every store delivers the same bytes, so the data must be bitwise equal.
#include <torch/data.h>

#include <chrono>

#include "common/shared_data.h"
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
  void SetUp(const trickbench::Instance& s) override {
    // The three stores are written once per run, fsync'd, and shared (common/shared_data.h):
    // their pages are clean, so every run can evict them.
    const SyntheticSpec spec{.count = kImages, .height = 32, .width = 32, .seed = kSharedImageSeed};
    dir_ = trickbench::SharedDataDir(SharedKey(spec, "packed_shards"), [&](const std::string& d) {
      const auto samples = EncodeAll(MakeSyntheticImages(spec), ImageFormat::kJpeg);
      const FileStore files = FileStore::Write(d + "/files", samples, ImageFormat::kJpeg);
      LmdbStore::Write(d + "/train.lmdb", samples);
      ShardStore::Write(d + "/train.shard", samples);
      std::vector<std::string> written = files.Files();
      written.push_back(d + "/train.lmdb/data.mdb");
      written.push_back(d + "/train.shard");
      SyncToDisk(written);
    });
    files_ = std::make_shared<FileStore>(dir_ + "/files");
    lmdb_dir_ = dir_ + "/train.lmdb";
    shard_ = std::make_shared<ShardStore>(dir_ + "/train.shard");
    all_files_ = files_->Files();
    all_files_.push_back(lmdb_dir_ + "/data.mdb");
    all_files_.push_back(dir_ + "/train.shard");
    options_ = {.seed = trickbench::HarnessRng()(), .augment = {.crop = 28}, .trace = trace_};
  }

  void Files() {
    Epoch([this] { return files_; }, files_->Files());
  }
  // LMDB reads through a shared mmap, and the kernel does not drop mapped pages on
  // fadvise(DONTNEED): the database is opened after the eviction and closed after the
  // epoch (mdb_env_open costs well under a millisecond), so it too is read cold.
  void Lmdb() {
    Epoch([this] { return std::make_shared<LmdbStore>(lmdb_dir_); }, {StoreFile("lmdb")});
  }
  void Shard() {
    Epoch([this] { return shard_; }, {StoreFile("shard")});
  }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  std::string Inactive(const std::string& variant) override {
    const LoadTrace::Snapshot t = trace_->Get();
    std::set<std::string> own = {StoreFile(variant)};
    if (variant == "files") {
      const std::vector<std::string> paths = files_->Files();
      own = std::set<std::string>(paths.begin(), paths.end());
    }
    if (t.files != own) {
      return "the run read from " + std::to_string(t.files.size()) + " files (" +
             (t.files.empty() ? "none" : *t.files.begin()) + (t.files.size() > 1 ? ", ..." : "") +
             "), not the " + std::to_string(own.size()) + " of the " + variant + " store";
    }
    return WhyNotReadFromStorage(dir_, resident_after_evict_, fetched_bytes_, t.bytes_read);
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    // Flags appear only when true, fractions only when non-zero: Google Benchmark 1.7.1
    // writes the spread of an all-zero counter as nan, which its JSON cannot carry.
    std::map<std::string, double> c = {
        {"evict_method_posix_fadvise_dontneed", 1},
        {"evicted_bytes_per_run", static_cast<double>(evicted_bytes_)},
        {"evict_seconds_per_run", evict_seconds_},
        {"same_device_all_variants", 1},
        // The distinct files the run read samples from: each opened once per run, but for
        // the shard, opened once in SetUp.
        {"files_opened_per_run", static_cast<double>(trace_->Get().files.size())},
    };
    if (resident_after_evict_ > 0) c["resident_fraction_after_evict"] = resident_after_evict_;
    if (resident_after_evict_ >= 0.05) c["page_cache_not_evicted"] = 1;
    if (fetched_bytes_ > 0) c["storage_read_bytes_per_run"] = static_cast<double>(fetched_bytes_);
    if (IsRamBacked(dir_)) c["data_dir_is_ram_backed"] = 1;
    return c;
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  // The file holding the lmdb or shard store's data.
  std::string StoreFile(const std::string& variant) const {
    return variant == "lmdb" ? lmdb_dir_ + "/data.mdb" : dir_ + "/train.shard";
  }

  // `open` gives the store; `files` are its files (LMDB's are known before it is open).
  void Epoch(const std::function<std::shared_ptr<SampleStore>()>& open,
             const std::vector<std::string>& files) {
    trace_->Reset();
    const auto start = std::chrono::steady_clock::now();
    evicted_bytes_ = EvictFromPageCache(all_files_).bytes;
    evict_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Before the open, which reads LMDB's meta pages: what the eviction left, not the run.
    resident_after_evict_ = ResidentFraction(files);
    const int64_t fetched_before = StorageReadBytes();
    const std::shared_ptr<SampleStore> store = open();
    digest_ = EpochDigest();
    RunEpoch(ImageDataset(store, options_).ForEpoch(epoch_++), {.batch_size = 64},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
    fetched_bytes_ = fetched_before < 0 ? -1 : StorageReadBytes() - fetched_before;
  }

  std::string dir_;  // the run's shared copy (common/shared_data.h)
  std::shared_ptr<SampleStore> files_, shard_;
  std::string lmdb_dir_;
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

TRICKBENCH_TRICK(packed_shards, PackedShards)
    .Category("Data loading")
    .Source("B")
    .Claim("fewer opens/seeks, faster")
    .Expect(trickbench::claim::Faster())
    .HostSide("file reads and decoding run on the host; no device is involved")
    .Variant("files", &PackedShards::Files)
    .Variant("lmdb", &PackedShards::Lmdb)
    .Variant("shard", &PackedShards::Shard)
    .Bitwise();
