// preprocess_offline (B): decode and resize once, offline, instead of every epoch.
//
// The raw data set is 128x128 JPEGs; training wants 64x64. The baseline decodes and
// resizes (OpenCV, INTER_AREA) every sample in every epoch. The optimized variant does
// that once, before anything is timed (once per run: the stores are shared by its
// processes; its one-off cost is the counter offline_seconds), and stores the 64x64 pixels as raw records in one shard file; each
// epoch then only reads them and applies the random augmentation, which must stay
// per-epoch (seeded per sample). Both through torch::data's DataLoader, page cache warm.
//
// Evidence that a run took its path: the run's LoadTrace counts JPEG decodes and resizes
// (every sample for the baseline, none for the preprocessed variant, which decodes only
// raw records: a memcpy).
//
// The preprocessed pixels are exactly the baseline's resize output, so the delivered
// batches are bitwise equal.
#include <torch/data.h>

#include <chrono>
#include <fstream>

#include "common/shared_data.h"
#include "data/codec.h"
#include "data/dataset.h"
#include "data/image_set.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"

namespace {

using namespace trickbench::data;

constexpr int64_t kImages = 256;
constexpr int64_t kStored = 128;
constexpr int64_t kTrained = 64;

class PreprocessOffline : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    // Both stores are made once per run and shared (common/shared_data.h); the one-off
    // preprocessing's time is kept beside them, since it was measured where it ran.
    const SyntheticSpec spec{
        .count = kImages, .height = kStored, .width = kStored, .seed = kSharedImageSeed};
    const std::string dir = trickbench::SharedDataDir(
        SharedKey(spec, "preprocess_offline-" + std::to_string(kTrained)),
        [&](const std::string& d) {
          const FileStore jpegs = FileStore::Write(
              d + "/jpeg", EncodeAll(MakeSyntheticImages(spec), ImageFormat::kJpeg),
              ImageFormat::kJpeg);
          const auto start = std::chrono::steady_clock::now();
          std::vector<EncodedSample> preprocessed;
          for (size_t i = 0; i < jpegs.size(); ++i) {
            const Sample s = jpegs.Read(i);
            preprocessed.push_back(
                {EncodeImage(ResizeImage(DecodeImage(s.bytes, s.name), kTrained, kTrained),
                             ImageFormat::kRaw),
                 s.label});
          }
          ShardStore::Write(d + "/preprocessed.shard", preprocessed);
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          WriteWholeFile(d + "/offline_seconds", std::to_string(seconds));
        });
    jpegs_ = std::make_shared<FileStore>(dir + "/jpeg");
    preprocessed_ = std::make_shared<ShardStore>(dir + "/preprocessed.shard");
    std::ifstream(dir + "/offline_seconds") >> offline_seconds_;

    const uint64_t seed = trickbench::HarnessRng()();
    every_epoch_ = std::make_unique<ImageDataset>(
        jpegs_,
        DatasetOptions{.seed = seed, .resize = kTrained, .augment = {.crop = 56}, .trace = trace_});
    cached_ = std::make_unique<ImageDataset>(
        preprocessed_, DatasetOptions{.seed = seed, .augment = {.crop = 56}, .trace = trace_});
  }

  void DecodeResizeEachEpoch() { Epoch(*every_epoch_); }
  void PreprocessedOnce() { Epoch(*cached_); }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  std::string Inactive(const std::string& variant) override {
    const LoadTrace::Snapshot t = trace_->Get();
    const int64_t jpegs = t.Decoded(ImageFormat::kJpeg), raws = t.Decoded(ImageFormat::kRaw);
    const std::string did = "the run decoded " + std::to_string(jpegs) + " JPEGs and " +
                            std::to_string(raws) + " raw records and resized " +
                            std::to_string(t.resized) + " of " + std::to_string(kImages) +
                            " samples";
    if (variant == "decode_resize_each_epoch" && (jpegs != kImages || t.resized != kImages)) {
      return did + ": the baseline must decode and resize every one";
    }
    if (variant == "preprocessed_once" && (jpegs != 0 || t.resized != 0 || raws != kImages)) {
      return did + ": preprocessed data needs neither";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    if (variant == "decode_resize_each_epoch") return {};
    return {{"offline_seconds", offline_seconds_}};
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  void Epoch(const ImageDataset& dataset) {
    trace_->Reset();
    digest_ = EpochDigest();
    RunEpoch(dataset.ForEpoch(epoch_++), {.batch_size = 64},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
  }

  std::shared_ptr<FileStore> jpegs_;
  std::shared_ptr<ShardStore> preprocessed_;
  std::unique_ptr<ImageDataset> every_epoch_, cached_;
  std::shared_ptr<LoadTrace> trace_ = std::make_shared<LoadTrace>();  // the last run's work
  double offline_seconds_ = 0;
  int64_t epoch_ = 0;
  EpochDigest digest_;
};

}  // namespace

TRICKBENCH_TRICK(preprocess_offline, PreprocessOffline)
    .Category("Data loading")
    .Source("B")
    .Claim("removes per-epoch work")
    .Expect(trickbench::claim::Faster())
    .HostSide("decoding, resizing and reading run on the host; no device is involved")
    .Variant("decode_resize_each_epoch", &PreprocessOffline::DecodeResizeEachEpoch)
    .Variant("preprocessed_once", &PreprocessOffline::PreprocessedOnce)
    .Bitwise();
