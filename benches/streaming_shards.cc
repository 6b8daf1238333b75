// streaming_shards (B): one sequential stream (tar-style, read front to back like an
// IterableDataset over a .tar) instead of one file per sample.
//
// The same JPEG samples stored twice in the data dir ($TRICKBENCH_DATA_DIR, else $TMPDIR
// or /tmp): one file per sample (an open, a read and a close each, in index order), and
// one stream file whose records are length-prefixed (uint64 size, int64 label, then the
// bytes) and back to back, with no index: the reader opens it once and reads it with
// large sequential read()s, handing out records in order. It cannot seek, so the
// data set it feeds can only be read in order (it throws otherwise), which is all an
// IterableDataset promises too. One run is one epoch through torch::data's DataLoader
// (0 workers: the memory meter sees every allocation), decode and seeded augmentation
// included: only the storage differs.
//
// I/O honesty: before every run of either variant both stores are evicted from the page
// cache (posix_fadvise(DONTNEED), after the one fsync when the run's copy was written), so each reads cold and
// pays the same eviction cost. An eviction that did not work makes the run inactive
// (it would time RAM, not storage; data/page_cache.h WhyNotReadFromStorage): a
// RAM-backed data dir, 5 % or more of the variant's pages still cached afterwards, or
// the kernel fetching from storage (/proc/self/io) less than half the bytes read. Directory entries and inodes stay cached, so opening
// the small files is cheaper than on a truly cold machine.
//
// Counters come from the body's own reads: files_opened_per_run, bytes_read_per_run.
// Both deliver the same bytes in the same order: the data must be bitwise equal.
#include <torch/data.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/shared_data.h"
#include "data/dataset.h"
#include "data/image_set.h"
#include "data/page_cache.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"

namespace {

using namespace trickbench::data;

constexpr int64_t kImages = 512;
constexpr size_t kReadChunk = 1 << 20;  // a tar reader's buffered read size

struct RecordHeader {
  uint64_t size;
  int64_t label;
};
static_assert(sizeof(RecordHeader) == 16, "the stream's record header is 16 bytes, no padding");

// What the body read, counted where it reads.
struct IoCount {
  std::atomic<int64_t> files_opened{0}, bytes_read{0}, stream_opens{0};
  void Reset() { files_opened = bytes_read = stream_opens = 0; }
};

void WriteStream(const std::string& path, const std::vector<EncodedSample>& samples) {
  std::string out;
  for (const auto& s : samples) {
    const RecordHeader h{s.bytes.size(), s.label};
    out.append(reinterpret_cast<const char*>(&h), sizeof h);
    out.append(s.bytes);
  }
  WriteWholeFile(path, out);
}

// The stream as a store that only goes forward: Read(i) must ask for the next record.
class StreamStore : public SampleStore {
 public:
  StreamStore(std::string path, size_t records, IoCount* io)
      : path_(std::move(path)), records_(records), io_(io) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error(path_ + ": open: " + std::strerror(errno));
    ++io_->files_opened;
    ++io_->stream_opens;
  }
  ~StreamStore() override { ::close(fd_); }
  StreamStore(const StreamStore&) = delete;
  StreamStore& operator=(const StreamStore&) = delete;

  size_t size() const override { return records_; }
  std::vector<std::string> Files() const override { return {path_}; }

  // Called from the loading thread only (0 workers), in index order.
  Sample Read(size_t index) const override {
    if (index != next_) {
      throw std::logic_error(path_ + ": a stream reads in order: asked for record " +
                             std::to_string(index) + ", next is " + std::to_string(next_));
    }
    RecordHeader h;
    Take(reinterpret_cast<char*>(&h), sizeof h, index);
    Sample s;
    s.bytes.resize(h.size);
    Take(s.bytes.data(), h.size, index);
    s.label = h.label;
    s.name = path_ + "#" + std::to_string(index);
    s.file = path_;
    ++next_;
    return s;
  }

 private:
  // The next `n` bytes of the stream, refilling the buffer with sequential reads.
  void Take(char* dst, size_t n, size_t index) const {
    while (n > 0) {
      if (pos_ == buffer_.size()) {
        buffer_.resize(kReadChunk);
        const ssize_t got = ::read(fd_, buffer_.data(), kReadChunk);
        if (got <= 0) {
          throw std::runtime_error(path_ + ": record " + std::to_string(index) + ": " +
                                   (got == 0 ? "stream ends early" : std::strerror(errno)));
        }
        buffer_.resize(static_cast<size_t>(got));
        pos_ = 0;
        io_->bytes_read += got;
      }
      const size_t k = std::min(n, buffer_.size() - pos_);
      std::memcpy(dst, buffer_.data() + pos_, k);
      pos_ += k, dst += k, n -= k;
    }
  }

  std::string path_;
  size_t records_;
  IoCount* io_;
  int fd_ = -1;
  mutable std::string buffer_;
  mutable size_t pos_ = 0, next_ = 0;
};

// FileStore counted: each of its Reads opens and reads one whole file.
class CountedFiles : public SampleStore {
 public:
  CountedFiles(std::shared_ptr<const FileStore> files, IoCount* io)
      : files_(std::move(files)), io_(io) {}
  size_t size() const override { return files_->size(); }
  std::vector<std::string> Files() const override { return files_->Files(); }
  Sample Read(size_t index) const override {
    Sample s = files_->Read(index);
    ++io_->files_opened;
    io_->bytes_read += static_cast<int64_t>(s.bytes.size());
    return s;
  }

 private:
  std::shared_ptr<const FileStore> files_;
  IoCount* io_;
};

class StreamingShards : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    // Both layouts are written once per run, fsync'd, and shared (common/shared_data.h):
    // their pages are clean, so every run can evict them.
    const SyntheticSpec spec{.count = kImages, .height = 32, .width = 32, .seed = kSharedImageSeed};
    dir_ =
        trickbench::SharedDataDir(SharedKey(spec, "streaming_shards"), [&](const std::string& d) {
          const auto samples = EncodeAll(MakeSyntheticImages(spec), ImageFormat::kJpeg);
          std::vector<std::string> written =
              FileStore::Write(d + "/files", samples, ImageFormat::kJpeg).Files();
          WriteStream(d + "/train.stream", samples);
          written.push_back(d + "/train.stream");
          SyncToDisk(written);
        });
    files_ = std::make_shared<FileStore>(dir_ + "/files");
    stream_path_ = dir_ + "/train.stream";
    all_files_ = files_->Files();
    all_files_.push_back(stream_path_);
    options_ = {.seed = trickbench::HarnessRng()(), .augment = {.crop = 28}};
  }

  void PerFile() {
    Epoch([this] { return std::make_shared<CountedFiles>(files_, &io_); });
  }
  void Stream() {
    Epoch([this] { return std::make_shared<StreamStore>(stream_path_, kImages, &io_); });
  }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  std::string Inactive(const std::string& variant) override {
    if (variant == "stream" && (io_.stream_opens != 1 || io_.files_opened != 1)) {
      return "the epoch opened " + std::to_string(io_.files_opened) + " files, " +
             std::to_string(io_.stream_opens) + " of them streams; expected the one stream";
    }
    if (variant == "per_file" && io_.files_opened != kImages) {
      return "the epoch opened " + std::to_string(io_.files_opened) + " files, expected " +
             std::to_string(kImages);
    }
    return WhyNotReadFromStorage(dir_, resident_after_evict_, fetched_bytes_, io_.bytes_read);
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    std::map<std::string, double> c = {
        {"files_opened_per_run", static_cast<double>(io_.files_opened)},
        {"bytes_read_per_run", static_cast<double>(io_.bytes_read)},
        {"evicted_bytes_per_run", static_cast<double>(evicted_bytes_)},
        {"resident_fraction_after_evict", resident_after_evict_},
    };
    if (fetched_bytes_ >= 0) c["storage_read_bytes_per_run"] = static_cast<double>(fetched_bytes_);
    return c;
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  void Epoch(const std::function<std::shared_ptr<SampleStore>()>& open) {
    io_.Reset();
    evicted_bytes_ = EvictFromPageCache(all_files_).bytes;
    const int64_t fetched_before = StorageReadBytes();
    const std::shared_ptr<SampleStore> store = open();
    resident_after_evict_ = ResidentFraction(store->Files());
    digest_ = EpochDigest();
    RunEpoch(ImageDataset(store, options_).ForEpoch(epoch_++), {.batch_size = 64},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
    const int64_t fetched_after = StorageReadBytes();
    fetched_bytes_ = fetched_before < 0 || fetched_after < 0 ? -1 : fetched_after - fetched_before;
  }

  std::string dir_;  // the run's shared copy (common/shared_data.h)
  std::shared_ptr<const FileStore> files_;
  std::string stream_path_;
  std::vector<std::string> all_files_;
  DatasetOptions options_;
  IoCount io_;
  int64_t epoch_ = 0;
  int64_t evicted_bytes_ = 0;
  double resident_after_evict_ = 0;
  int64_t fetched_bytes_ = -1;  // from storage during the last run; -1: not accounted
  EpochDigest digest_;
};

}  // namespace

TRICKBENCH_TRICK(streaming_shards, StreamingShards)
    .Category("Data loading")
    .Source("B")
    .Claim("sequential reads, no per-sample open")
    .Expect(trickbench::claim::Faster())
    .HostSide("file reads and decoding run on the host; no device is involved")
    .Variant("per_file", &StreamingShards::PerFile)
    .Variant("stream", &StreamingShards::Stream)
    .Bitwise();
