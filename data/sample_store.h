// Where encoded samples live: one file per sample, one packed shard file, or LMDB.
//
// A SampleStore hands out sample i's encoded bytes and label; ImageDataset (dataset.h)
// decodes them. Every store is safe to read from several threads at once (DataLoader
// workers do), and every read error names the file (and record) it came from.
//
//   auto samples = EncodeAll(images, ImageFormat::kJpeg);
//   FileStore files = FileStore::Write(dir + "/files", samples, ImageFormat::kJpeg);
//   ShardStore::Write(dir + "/train.shard", samples);
//   ShardStore shard(dir + "/train.shard");
//   Sample s = shard.Read(7);   // s.bytes, s.label, s.name == ".../train.shard#7"
//
// Shard format (little-endian): the records back to back, then the index (per record:
// uint64 offset, uint64 size, int64 label), then a 24-byte footer: uint64 record count,
// uint64 index offset, 8-byte magic "TBSHARD1". One open, then one pread per sample.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/codec.h"
#include "data/image_set.h"

namespace trickbench::data {

struct Sample {
  std::string bytes;
  int64_t label = 0;
  std::string name;  // for error messages: a path, or "<shard>#<index>"
  std::string file;  // the file the bytes were read from (a path, the shard, LMDB's data.mdb)
};

class SampleStore {
 public:
  virtual ~SampleStore() = default;
  virtual size_t size() const = 0;
  virtual Sample Read(size_t index) const = 0;
  // The files holding the data, e.g. to evict them from the page cache.
  virtual std::vector<std::string> Files() const = 0;
};

// One file per sample, <dir>/<index>_<label><ext>; labels also in <dir>/labels.txt.
class FileStore : public SampleStore {
 public:
  static FileStore Write(const std::string& dir, const std::vector<EncodedSample>& samples,
                         ImageFormat format);
  // Opens a folder written by Write (reads labels.txt).
  explicit FileStore(const std::string& dir);

  size_t size() const override { return paths_.size(); }
  Sample Read(size_t index) const override;
  std::vector<std::string> Files() const override { return paths_; }

 private:
  FileStore() = default;
  std::vector<std::string> paths_;
  std::vector<int64_t> labels_;
};

class ShardStore : public SampleStore {
 public:
  static void Write(const std::string& path, const std::vector<EncodedSample>& samples);
  explicit ShardStore(const std::string& path);  // throws, naming the file, if it is not a shard
  ~ShardStore() override;
  ShardStore(const ShardStore&) = delete;
  ShardStore& operator=(const ShardStore&) = delete;

  size_t size() const override { return index_.size(); }
  Sample Read(size_t index) const override;
  std::vector<std::string> Files() const override { return {path_}; }

 private:
  struct Entry {
    uint64_t offset, size;
    int64_t label;
  };
  std::string path_;
  int fd_ = -1;
  std::vector<Entry> index_;
};

// Reads a whole file; throws std::runtime_error naming it when it cannot.
std::string ReadWholeFile(const std::string& path);
// Writes a whole file (truncating); throws naming it when it cannot.
void WriteWholeFile(const std::string& path, const std::string& bytes);

}  // namespace trickbench::data
