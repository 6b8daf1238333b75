// Samples in an LMDB database: the packed store most PyTorch users already know.
//
//   LmdbStore::Write(dir + "/train.lmdb", samples);   // a folder: data.mdb, lock.mdb
//   LmdbStore db(dir + "/train.lmdb");
//   Sample s = db.Read(3);                              // s.name == ".../train.lmdb#3"
//
// Keys are the sample index as 8 big-endian bytes (so keys sort in sample order and a
// sequential epoch walks the B-tree in order); values are an int64 label then the
// encoded image. Opened read-only, unlocked (MDB_NOLOCK: nobody writes while we read) and
// with transactions not tied to threads (MDB_NOTLS), so
// DataLoader worker threads can read concurrently, each read in its own transaction.
#pragma once

#include <string>
#include <vector>

#include "data/sample_store.h"

struct MDB_env;

namespace trickbench::data {

class LmdbStore : public SampleStore {
 public:
  static void Write(const std::string& dir, const std::vector<EncodedSample>& samples);
  explicit LmdbStore(const std::string& dir);
  ~LmdbStore() override;
  LmdbStore(const LmdbStore&) = delete;
  LmdbStore& operator=(const LmdbStore&) = delete;

  size_t size() const override { return size_; }
  Sample Read(size_t index) const override;
  std::vector<std::string> Files() const override { return {dir_ + "/data.mdb"}; }

 private:
  std::string dir_;
  MDB_env* env_ = nullptr;
  unsigned int dbi_ = 0;
  size_t size_ = 0;
};

}  // namespace trickbench::data
