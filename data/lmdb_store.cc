#include "data/lmdb_store.h"

#include <lmdb.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace trickbench::data {
namespace {

void Check(int rc, const std::string& what, const std::string& dir) {
  if (rc != MDB_SUCCESS)
    throw std::runtime_error("LMDB " + what + " " + dir + ": " + mdb_strerror(rc));
}

void Key(size_t index, unsigned char out[8]) {
  for (int b = 7; b >= 0; --b, index >>= 8) out[b] = static_cast<unsigned char>(index & 0xFF);
}

// Enough address space for the data plus B-tree pages; LMDB maps it lazily.
size_t MapSize(const std::vector<EncodedSample>& samples) {
  size_t bytes = 0;
  for (const auto& s : samples) bytes += s.bytes.size() + 64;
  return 2 * bytes + (64u << 20);
}

}  // namespace

void LmdbStore::Write(const std::string& dir, const std::vector<EncodedSample>& samples) {
  std::filesystem::create_directories(dir);
  MDB_env* env = nullptr;
  Check(mdb_env_create(&env), "env_create", dir);
  MDB_txn* txn = nullptr;
  try {
    Check(mdb_env_set_mapsize(env, MapSize(samples)), "set_mapsize", dir);
    Check(mdb_env_open(env, dir.c_str(), 0, 0644), "open", dir);
    Check(mdb_txn_begin(env, nullptr, 0, &txn), "txn_begin", dir);
    MDB_dbi dbi;
    Check(mdb_dbi_open(txn, nullptr, 0, &dbi), "dbi_open", dir);
    std::string value;
    for (size_t i = 0; i < samples.size(); ++i) {
      unsigned char key_bytes[8];
      Key(i, key_bytes);
      value.assign(reinterpret_cast<const char*>(&samples[i].label), sizeof(int64_t));
      value += samples[i].bytes;
      MDB_val key{sizeof key_bytes, key_bytes};
      MDB_val val{value.size(), value.data()};
      Check(mdb_put(txn, dbi, &key, &val, MDB_APPEND), "put", dir);
    }
    const int rc = mdb_txn_commit(txn);
    txn = nullptr;
    Check(rc, "commit", dir);
  } catch (...) {
    if (txn) mdb_txn_abort(txn);
    mdb_env_close(env);
    throw;
  }
  mdb_env_close(env);
}

LmdbStore::LmdbStore(const std::string& dir) : dir_(dir) {
  Check(mdb_env_create(&env_), "env_create", dir);
  MDB_txn* txn = nullptr;
  try {
    Check(mdb_env_open(env_, dir.c_str(), MDB_RDONLY | MDB_NOTLS | MDB_NOLOCK, 0644), "open", dir);
    Check(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "txn_begin", dir);
    MDB_dbi dbi;
    Check(mdb_dbi_open(txn, nullptr, 0, &dbi), "dbi_open", dir);
    MDB_stat st;
    Check(mdb_stat(txn, dbi, &st), "stat", dir);
    dbi_ = dbi;
    size_ = st.ms_entries;
    mdb_txn_abort(txn);
  } catch (...) {
    if (txn) mdb_txn_abort(txn);
    mdb_env_close(env_);
    throw;
  }
}

LmdbStore::~LmdbStore() { mdb_env_close(env_); }

Sample LmdbStore::Read(size_t index) const {
  const std::string name = dir_ + "#" + std::to_string(index);
  MDB_txn* txn = nullptr;
  Check(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "txn_begin", name);
  unsigned char key_bytes[8];
  Key(index, key_bytes);
  MDB_val key{sizeof key_bytes, key_bytes};
  MDB_val val;
  const int rc = mdb_get(txn, dbi_, &key, &val);
  if (rc != MDB_SUCCESS) {
    mdb_txn_abort(txn);
    Check(rc, "get", name);
  }
  Sample s;
  s.name = name;
  s.file = dir_ + "/data.mdb";
  if (val.mv_size < sizeof(int64_t)) {
    mdb_txn_abort(txn);
    throw std::runtime_error("LMDB record " + name + " is shorter than its label");
  }
  std::memcpy(&s.label, val.mv_data, sizeof(int64_t));
  s.bytes.assign(static_cast<const char*>(val.mv_data) + sizeof(int64_t),
                 val.mv_size - sizeof(int64_t));
  mdb_txn_abort(txn);  // read-only: abort is how a reader ends its transaction
  return s;
}

}  // namespace trickbench::data
