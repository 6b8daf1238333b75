// The synthetic labelled image set the data pipeline tricks read, and the temporary
// folder it lives in.
//
// The images are made from the torch CPU generator (so the harness's seed decides
// them): smooth colour fields (random 4x4 colours, bilinearly upsampled) plus a little
// noise, so JPEG compresses them the way it compresses photos rather than white noise.
//
//   trickbench::data::TempDir dir(trickbench::data::DefaultDataRoot(), "tb_images");
//   auto set = trickbench::data::MakeSyntheticImages({.count = 512, .height = 64, .width = 64});
//   auto samples = trickbench::data::EncodeAll(set, ImageFormat::kJpeg);
//   auto store = trickbench::data::FileStore::Write(dir.path(), samples, ImageFormat::kJpeg);
//   // ... dir and every file in it are removed when `dir` goes away.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

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

// Where the benchmark writes its data set: $TRICKBENCH_DATA_DIR when set, else the
// system temporary folder ($TMPDIR, /tmp). This is "the configured data dir" of
// fast_storage; set it to the storage you train from.
std::string DefaultDataRoot();

struct SyntheticSpec {
  int64_t count = 512;
  int64_t height = 64;
  int64_t width = 64;
  int64_t classes = 10;
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

}  // namespace trickbench::data
