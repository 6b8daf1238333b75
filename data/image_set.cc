#include "data/image_set.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/functional.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "data/page_cache.h"
#include "data/sample_store.h"

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

LabeledImages MakeSyntheticImages(const SyntheticSpec& spec) {
  LabeledImages set;
  c10::optional<at::Generator> own;  // c10's: LibTorch 1.13's is not std::optional
  if (spec.seed) own = at::detail::createCPUGenerator(*spec.seed);
  const torch::Tensor coarse = torch::rand({spec.count, 3, 4, 4}, own, torch::kFloat);
  const torch::Tensor smooth = torch::nn::functional::interpolate(
      coarse, torch::nn::functional::InterpolateFuncOptions()
                  .size(std::vector<int64_t>{spec.height, spec.width})
                  .mode(torch::kBilinear)
                  .align_corners(false));
  const torch::Tensor noise =
      torch::randn({spec.count, 3, spec.height, spec.width}, own, torch::kFloat) * 0.04;
  const torch::Tensor pixels =
      ((smooth + noise).clamp(0, 1) * 255).round().to(torch::kUInt8).permute({0, 2, 3, 1});
  const torch::Tensor labels = torch::randint(spec.classes, {spec.count}, own, torch::kLong);
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

std::string SharedKey(const SyntheticSpec& spec, const std::string& what) {
  if (!spec.seed) {
    throw std::invalid_argument("a shared synthetic set needs SyntheticSpec::seed ('" + what +
                                "')");
  }
  return "images-n" + std::to_string(spec.count) + "-" + std::to_string(spec.height) + "x" +
         std::to_string(spec.width) + "-c" + std::to_string(spec.classes) + "-s" +
         std::to_string(*spec.seed) + "-" + what + "-v1";
}

std::string SharedImageFiles(const SyntheticSpec& spec, ImageFormat format) {
  return SharedDataDir(SharedKey(spec, FormatName(format)), [&](const std::string& folder) {
    const FileStore store =
        FileStore::Write(folder, EncodeAll(MakeSyntheticImages(spec), format), format);
    SyncToDisk(store.Files());
  });
}

}  // namespace trickbench::data
