#include "data/image_set.h"

#include <torch/nn/functional.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace trickbench::data {

TempDir::TempDir(const std::string& parent, const std::string& prefix) {
  std::string pattern = parent + "/" + prefix + ".XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary folder in " + parent + ": " +
                             std::strerror(errno));
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;  // a destructor must not throw; a leftover folder is the lesser evil
  std::filesystem::remove_all(path_, ec);
}

std::string DefaultDataRoot() {
  for (const char* var : {"TRICKBENCH_DATA_DIR", "TMPDIR"}) {
    if (const char* v = std::getenv(var); v && *v) return v;
  }
  return "/tmp";
}

LabeledImages MakeSyntheticImages(const SyntheticSpec& spec) {
  LabeledImages set;
  const torch::Tensor coarse = torch::rand({spec.count, 3, 4, 4});
  const torch::Tensor smooth = torch::nn::functional::interpolate(
      coarse, torch::nn::functional::InterpolateFuncOptions()
                  .size(std::vector<int64_t>{spec.height, spec.width})
                  .mode(torch::kBilinear)
                  .align_corners(false));
  const torch::Tensor noise = torch::randn({spec.count, 3, spec.height, spec.width}) * 0.04;
  const torch::Tensor pixels =
      ((smooth + noise).clamp(0, 1) * 255).round().to(torch::kUInt8).permute({0, 2, 3, 1});
  const torch::Tensor labels = torch::randint(spec.classes, {spec.count}, torch::kLong);
  for (int64_t i = 0; i < spec.count; ++i) {
    set.images.push_back(pixels[i].contiguous());
    set.labels.push_back(labels[i].item<int64_t>());
  }
  return set;
}

std::vector<EncodedSample> EncodeAll(const LabeledImages& set, ImageFormat format,
                                     int jpeg_quality) {
  std::vector<EncodedSample> out;
  out.reserve(set.images.size());
  for (size_t i = 0; i < set.images.size(); ++i) {
    out.push_back({EncodeImage(set.images[i], format, jpeg_quality), set.labels[i]});
  }
  return out;
}

}  // namespace trickbench::data
