// decode_format (B): decode BMP or raw pixels instead of JPEG.
//
// A JPEG data set (128x128, quality 90) converted once to BMP and to raw pixels (our
// 16-byte header + the bytes): the conversion stores the JPEG's decoded pixels, as a
// user converting their data set would, so all three deliver bitwise the same tensors.
// One run is one epoch through torch::data's DataLoader with OpenCV decoding (raw: a
// memcpy), seeded augmentation included, page cache warm: this measures decoding, not
// storage. The price, in the counter stored_bytes: BMP and raw are ~10x larger, which
// costs I/O on cold or remote storage. Evidence that a variant read its own format: the
// run's LoadTrace counts the samples decoded per codec (by the bytes' signature).
#include <torch/data.h>

#include <filesystem>

#include "common/shared_data.h"
#include "data/codec.h"
#include "data/dataset.h"
#include "data/image_set.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"

namespace {

using namespace trickbench::data;

constexpr int64_t kImages = 128;

class DecodeFormat : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    // The three folders are written once per run and shared (common/shared_data.h).
    const SyntheticSpec spec{
        .count = kImages, .height = 128, .width = 128, .seed = kSharedImageSeed};
    const std::string dir =
        trickbench::SharedDataDir(SharedKey(spec, "decode_format"), [&](const std::string& d) {
          const auto jpegs = EncodeAll(MakeSyntheticImages(spec), ImageFormat::kJpeg);
          std::vector<EncodedSample> bmps, raws;
          for (size_t i = 0; i < jpegs.size(); ++i) {
            const torch::Tensor pixels = DecodeImage(jpegs[i].bytes, "sample " + std::to_string(i));
            bmps.push_back({EncodeImage(pixels, ImageFormat::kBmp), jpegs[i].label});
            raws.push_back({EncodeImage(pixels, ImageFormat::kRaw), jpegs[i].label});
          }
          FileStore::Write(d + "/jpeg", jpegs, ImageFormat::kJpeg);
          FileStore::Write(d + "/bmp", bmps, ImageFormat::kBmp);
          FileStore::Write(d + "/raw", raws, ImageFormat::kRaw);
        });
    const DatasetOptions options{
        .seed = trickbench::HarnessRng()(), .augment = {.crop = 112}, .trace = trace_};
    for (ImageFormat f : {ImageFormat::kJpeg, ImageFormat::kBmp, ImageFormat::kRaw}) {
      auto store = std::make_shared<FileStore>(dir + "/" + FormatName(f));
      int64_t bytes = 0;
      for (const auto& path : store->Files()) {
        bytes += static_cast<int64_t>(std::filesystem::file_size(path));
      }
      stored_bytes_[FormatName(f)] = bytes;
      datasets_.emplace(FormatName(f), ImageDataset(store, options));
    }
  }

  void Jpeg() { Epoch("jpeg"); }
  void Bmp() { Epoch("bmp"); }
  void Raw() { Epoch("raw"); }

  trickbench::Tensors Result() override { return digest_.Tensors(); }

  // The samples must have been decoded from the variant's format, every one of them:
  // a run through another format's store delivers the same pixels.
  std::string Inactive(const std::string& variant) override {
    const LoadTrace::Snapshot t = trace_->Get();
    for (ImageFormat f : {ImageFormat::kJpeg, ImageFormat::kBmp, ImageFormat::kRaw}) {
      const int64_t want = FormatName(f) == variant ? kImages : 0;
      if (t.Decoded(f) != want) {
        return "the run decoded " + std::to_string(t.Decoded(f)) + " " + FormatName(f) +
               " samples, expected " + std::to_string(want) + " (" + variant + " variant)";
      }
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"stored_bytes", static_cast<double>(stored_bytes_.at(variant))}};
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  void Epoch(const std::string& format) {
    trace_->Reset();
    digest_ = EpochDigest();
    RunEpoch(datasets_.at(format).ForEpoch(epoch_++), {.batch_size = 64},
             [this](torch::data::Example<>& b) { digest_.Add(b); });
  }

  std::map<std::string, ImageDataset> datasets_;
  std::map<std::string, int64_t> stored_bytes_;
  std::shared_ptr<LoadTrace> trace_ = std::make_shared<LoadTrace>();  // the last run's decodes
  int64_t epoch_ = 0;
  EpochDigest digest_;
};

}  // namespace

TRICKBENCH_TRICK(decode_format, DecodeFormat)
    .Category("Data loading")
    .Source("B")
    .Claim("BMP lowers decode time; OpenCV faster than PIL")
    .Expect(trickbench::claim::Faster().ForVariant("bmp"))
    .HostSide("reading and decoding the images runs on the host; no device is involved")
    .Variant("jpeg", &DecodeFormat::Jpeg)
    .Variant("bmp", &DecodeFormat::Bmp)
    .Variant("raw", &DecodeFormat::Raw)
    .Bitwise();
