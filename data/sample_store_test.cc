#include <torch/utils.h>

#include "data/sample_store.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "data/image_set.h"
#include "data/lmdb_store.h"

namespace trickbench::data {
namespace {

std::vector<EncodedSample> Samples(int n) {
  torch::manual_seed(1);
  return EncodeAll(MakeSyntheticImages({.count = n, .height = 16, .width = 16}), ImageFormat::kRaw);
}

void ExpectSameSamples(const SampleStore& store, const std::vector<EncodedSample>& samples) {
  ASSERT_EQ(store.size(), samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample s = store.Read(i);
    EXPECT_EQ(s.bytes, samples[i].bytes) << i;
    EXPECT_EQ(s.label, samples[i].label) << i;
  }
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(SampleStore, FilesRoundTripAndReopen) {
  TempDir dir(DefaultDataRoot(), "store_test");
  const auto samples = Samples(7);
  const FileStore written = FileStore::Write(dir.path() + "/f", samples, ImageFormat::kRaw);
  ExpectSameSamples(written, samples);
  ExpectSameSamples(FileStore(dir.path() + "/f"), samples);
  EXPECT_EQ(written.Files().size(), 7u);
  EXPECT_NE(written.Read(3).name.find(".raw"), std::string::npos);
}

TEST(SampleStore, MissingSampleFileIsNamed) {
  TempDir dir(DefaultDataRoot(), "store_test");
  const FileStore store = FileStore::Write(dir.path(), Samples(3), ImageFormat::kRaw);
  const std::string victim = store.Files()[1];
  std::filesystem::remove(victim);
  const std::string error = ErrorOf([&] { store.Read(1); });
  EXPECT_NE(error.find(victim), std::string::npos) << error;
  EXPECT_THROW(store.Read(3), std::out_of_range);
  EXPECT_THROW(FileStore(dir.path() + "/nowhere"), std::runtime_error);
}

TEST(SampleStore, ShardRoundTripNamesRecords) {
  TempDir dir(DefaultDataRoot(), "store_test");
  const auto samples = Samples(9);
  ShardStore::Write(dir.path() + "/s.shard", samples);
  const ShardStore shard(dir.path() + "/s.shard");
  ExpectSameSamples(shard, samples);
  EXPECT_EQ(shard.Read(4).name, dir.path() + "/s.shard#4");
  EXPECT_EQ(shard.Read(4).file, dir.path() + "/s.shard");
  EXPECT_EQ(shard.Files(), std::vector<std::string>{dir.path() + "/s.shard"});
  EXPECT_THROW(shard.Read(9), std::out_of_range);
}

TEST(SampleStore, DamagedShardIsRejectedByName) {
  TempDir dir(DefaultDataRoot(), "store_test");
  const std::string path = dir.path() + "/s.shard";
  ShardStore::Write(path, Samples(4));
  const std::string whole = ReadWholeFile(path);
  WriteWholeFile(path, whole.substr(0, whole.size() - 30));  // index and footer damaged
  std::string error = ErrorOf([&] { ShardStore s(path); });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  WriteWholeFile(path, "tiny");
  error = ErrorOf([&] { ShardStore s(path); });
  EXPECT_NE(error.find("shorter than its footer"), std::string::npos) << error;
  error = ErrorOf([&] { ShardStore s(dir.path() + "/absent.shard"); });
  EXPECT_NE(error.find("absent.shard"), std::string::npos) << error;
}

TEST(SampleStore, LmdbRoundTrip) {
  TempDir dir(DefaultDataRoot(), "store_test");
  const auto samples = Samples(11);
  LmdbStore::Write(dir.path() + "/db", samples);
  const LmdbStore db(dir.path() + "/db");
  ExpectSameSamples(db, samples);
  EXPECT_EQ(db.Read(2).name, dir.path() + "/db#2");
  EXPECT_EQ(db.Read(2).file, db.Files()[0]);
  const std::string error = ErrorOf([&] { db.Read(11); });
  EXPECT_NE(error.find("#11"), std::string::npos) << error;
  EXPECT_TRUE(std::filesystem::exists(db.Files()[0]));
}

TEST(SampleStore, TempDirRemovesItsFiles) {
  std::string path;
  {
    TempDir dir(DefaultDataRoot(), "store_test");
    path = dir.path();
    FileStore::Write(path, Samples(2), ImageFormat::kRaw);
    EXPECT_TRUE(std::filesystem::exists(path + "/labels.txt"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace trickbench::data
