#include <torch/data.h>
#include <torch/utils.h>

#include "data/dataset.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "data/image_set.h"

namespace trickbench::data {
namespace {

struct Fixture {
  TempDir dir{DefaultDataRoot(), "dataset_test"};
  std::shared_ptr<FileStore> store;
  Fixture(int n, ImageFormat format) {
    torch::manual_seed(3);
    store = std::make_shared<FileStore>(FileStore::Write(
        dir.path(), EncodeAll(MakeSyntheticImages({.count = n, .height = 20, .width = 20}), format),
        format));
  }
};

std::vector<torch::Tensor> Digest(const ImageDataset& dataset, size_t workers) {
  EpochDigest digest;
  RunEpoch(dataset, {.batch_size = 8, .workers = workers},
           [&](torch::data::Example<>& b) { digest.Add(b); });
  return digest.Tensors();
}

bool Same(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].scalar_type() != b[i].scalar_type() || !torch::equal(a[i], b[i])) return false;
  }
  return true;
}

TEST(Augment, SeededPerSample) {
  torch::manual_seed(0);
  const torch::Tensor img = torch::randint(0, 256, {20, 20, 3}).to(torch::kUInt8);
  const AugmentOptions opts{.crop = 16};
  const torch::Tensor a = Augment(img, 42, opts);
  EXPECT_EQ(a.sizes(), (std::vector<int64_t>{3, 16, 16}));
  EXPECT_TRUE(torch::equal(a, Augment(img, 42, opts)));
  bool any_differs = false;
  for (uint64_t s = 43; s < 50; ++s) any_differs |= !torch::equal(a, Augment(img, s, opts));
  EXPECT_TRUE(any_differs);
  EXPECT_LE(a.max().item<float>(), 1.2f + 1e-6f);
  EXPECT_THROW(Augment(img, 1, {.crop = 21}), std::invalid_argument);
}

TEST(Augment, SampleSeedsDiffer) {
  EXPECT_NE(SampleSeed(1, 0, 0), SampleSeed(1, 0, 1));
  EXPECT_NE(SampleSeed(1, 0, 0), SampleSeed(1, 1, 0));
  EXPECT_NE(SampleSeed(1, 0, 0), SampleSeed(2, 0, 0));
  EXPECT_EQ(SampleSeed(9, 3, 4), SampleSeed(9, 3, 4));
}

TEST(ImageDataset, SameDataForAnyWorkerCount) {
  Fixture f(40, ImageFormat::kJpeg);
  const ImageDataset dataset(f.store, {.seed = 11, .augment = {.crop = 16}});
  const auto serial = Digest(dataset, 0);
  ASSERT_EQ(serial[3].size(0), 40);
  EXPECT_EQ(serial[0].sizes(), (std::vector<int64_t>{8, 3, 16, 16}));
  for (size_t workers : {1, 2, 4}) EXPECT_TRUE(Same(serial, Digest(dataset, workers))) << workers;
  EXPECT_FALSE(Same(serial, Digest(dataset.ForEpoch(1), 2))) << "epoch must change augmentation";
}

TEST(ImageDataset, ResizeBeforeAugment) {
  Fixture f(4, ImageFormat::kBmp);
  ImageDataset dataset(f.store, {.resize = 10, .augment = {.crop = 0, .flip = false}});
  EXPECT_EQ(dataset.get(0).data.sizes(), (std::vector<int64_t>{3, 10, 10}));
  EXPECT_EQ(dataset.get(3).target.item<int64_t>(), f.store->Read(3).label);
}

TEST(LoadTrace, RecordsWhatTheEpochDid) {
  Fixture f(24, ImageFormat::kJpeg);
  auto trace = std::make_shared<LoadTrace>();
  const ImageDataset dataset(f.store, {.resize = 12, .augment = {.crop = 8}, .trace = trace});
  Digest(dataset, 0);
  LoadTrace::Snapshot s = trace->Get();
  EXPECT_EQ(s.samples, 24);
  EXPECT_EQ(s.Decoded(ImageFormat::kJpeg), 24);
  EXPECT_EQ(s.Decoded(ImageFormat::kBmp) + s.Decoded(ImageFormat::kRaw), 0);
  EXPECT_EQ(s.resized, 24);
  EXPECT_EQ(s.files.size(), 24u);
  EXPECT_EQ(s.files.count(f.store->Files()[5]), 1u);
  int64_t bytes = 0;
  for (const auto& file : f.store->Files())
    bytes += static_cast<int64_t>(ReadWholeFile(file).size());
  EXPECT_EQ(s.bytes_read, bytes);
  EXPECT_EQ(s.threads, std::set<std::thread::id>{std::this_thread::get_id()});

  trace->Reset();
  EXPECT_EQ(trace->Get().samples, 0);
  Digest(dataset, 2);
  s = trace->Get();
  EXPECT_EQ(s.samples, 24);
  EXPECT_EQ(s.threads.count(std::this_thread::get_id()), 0u) << "workers, not the caller";
  EXPECT_GE(s.threads.size(), 1u);
  EXPECT_LE(s.threads.size(), 2u);
}

TEST(LoadTrace, NamesTheFileOfEveryStore) {
  TempDir dir(DefaultDataRoot(), "load_trace_test");
  torch::manual_seed(3);
  const auto samples =
      EncodeAll(MakeSyntheticImages({.count = 6, .height = 8, .width = 8}), ImageFormat::kRaw);
  ShardStore::Write(dir.path() + "/s.shard", samples);
  auto shard = std::make_shared<ShardStore>(dir.path() + "/s.shard");
  auto trace = std::make_shared<LoadTrace>();
  Digest(ImageDataset(shard, {.trace = trace}), 0);
  const LoadTrace::Snapshot s = trace->Get();
  EXPECT_EQ(s.files, std::set<std::string>{dir.path() + "/s.shard"});
  EXPECT_EQ(s.Decoded(ImageFormat::kRaw), 6);
  EXPECT_EQ(s.resized, 0);
}

TEST(ImageDataset, CorruptSampleFailsTheEpochNamingTheFile) {
  Fixture f(20, ImageFormat::kJpeg);
  const std::string victim = f.store->Files()[13];
  WriteWholeFile(victim, "this is not an image");
  const ImageDataset dataset(f.store, {});
  for (size_t workers : {0, 2}) {
    try {
      Digest(dataset, workers);
      FAIL() << "a corrupt sample went unnoticed with " << workers << " workers";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(victim), std::string::npos) << e.what();
    }
  }
}

TEST(ImageDataset, UnreadableSampleFailsNamingTheFile) {
  Fixture f(5, ImageFormat::kRaw);
  const std::string victim = f.store->Files()[2];
  std::filesystem::remove(victim);
  try {
    Digest(ImageDataset(f.store, {}), 1);
    FAIL() << "a missing sample went unnoticed";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(victim), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace trickbench::data
