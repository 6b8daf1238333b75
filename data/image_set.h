// The synthetic labelled image set the data pipeline tricks read, and the temporary
// folder it lives in.
//
// The images are made from the torch CPU generator (so the harness's seed decides
// them): smooth colour fields (random 4x4 colours, bilinearly upsampled) plus a little
// noise, so JPEG compresses them the way it compresses photos rather than white noise.
//
//   // In a trick: the run's one copy (common/shared_data.h), written by the first caller.
//   auto files = std::make_shared<FileStore>(SharedImageFiles(
//       {.count = 256, .seed = kSharedImageSeed}, ImageFormat::kJpeg));
//
//   // Or a private copy:
//   trickbench::data::TempDir dir(trickbench::data::DefaultDataRoot(), "tb_images");
//   auto set = trickbench::data::MakeSyntheticImages({.count = 512, .height = 64, .width = 64});
//   auto samples = trickbench::data::EncodeAll(set, ImageFormat::kJpeg);
//   auto store = trickbench::data::FileStore::Write(dir.path(), samples, ImageFormat::kJpeg);
//   // ... dir and every file in it are removed when `dir` goes away.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/shared_data.h"
#include "data/codec.h"

namespace trickbench::data {

// A fresh folder `<parent>/<prefix>.XXXXXX`, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir(const std::string& parent, const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Where the benchmark writes its data set (common/shared_data.h): $TRICKBENCH_DATA_DIR
// when set, else the system temporary folder ($TMPDIR, /tmp).
using trickbench::DefaultDataRoot;

struct SyntheticSpec {
  int64_t count = 512;
  int64_t height = 64;
  int64_t width = 64;
  int64_t classes = 10;
  // Drawn from a generator of its own with this seed, leaving the torch CPU generator
  // untouched: a set shared by every instance of a run (common/shared_data.h) must not
  // decide what the instances that only read it draw next. None: the CPU generator.
  std::optional<uint64_t> seed;
};

struct LabeledImages {
  std::vector<torch::Tensor> images;  // uint8 {H, W, 3}
  std::vector<int64_t> labels;
};

LabeledImages MakeSyntheticImages(const SyntheticSpec& spec);

// One encoded sample, as it is stored.
struct EncodedSample {
  std::string bytes;
  int64_t label = 0;
};

std::vector<EncodedSample> EncodeAll(const LabeledImages& set, ImageFormat format,
                                     int jpeg_quality = 90);

// The seed of the synthetic sets the data tricks share within a run: fixed, so that
// every process of the run (and every run) reads the same images.
inline constexpr uint64_t kSharedImageSeed = 0x7b1c5eed;

// A SharedDataDir key (common/shared_data.h) naming everything that decides a synthetic
// set's content, plus `what` was made of it: SharedKey({.count = 256, .seed = 1}, "jpeg")
// is "images-n256-64x64-c10-s1-jpeg-v1". Throws std::invalid_argument without spec.seed
// (a set drawn from the CPU generator is not the same for every caller).
std::string SharedKey(const SyntheticSpec& spec, const std::string& what);

// The folder of a FileStore of MakeSyntheticImages(spec) encoded as `format` (JPEG at
// quality 90), written once per run, fsync'd (its pages are clean: tricks that evict them
// can), shared by every instance and process of the run. Open it with FileStore(folder).
std::string SharedImageFiles(const SyntheticSpec& spec, ImageFormat format);

}  // namespace trickbench::data
