// Image encoding and decoding for the data pipeline tricks (OpenCV underneath).
//
// Images are uint8 tensors of shape {height, width, 3}, contiguous, in the channel
// order they were made in (OpenCV's BGR convention is irrelevant: we write and read
// our own pixels). Three on-disk formats:
//   jpeg  lossy, small; decode costs an IDCT per block
//   bmp   uncompressed, OpenCV parses the header and flips rows
//   raw   our own 16-byte header (magic, height, width, channels) + the pixels: a memcpy
//
//   std::string bytes = trickbench::data::EncodeImage(img, ImageFormat::kJpeg);
//   torch::Tensor back = trickbench::data::DecodeImage(bytes, "cat_001.jpg");
//
// DecodeImage throws std::runtime_error naming the sample when the bytes are not a
// complete image in one of the three formats (corrupt, truncated, empty).
#pragma once

#include <torch/types.h>

#include <optional>
#include <string>

namespace trickbench::data {

enum class ImageFormat { kJpeg, kBmp, kRaw };

std::string FormatName(ImageFormat format);  // "jpeg", "bmp", "raw"
std::string Extension(ImageFormat format);   // ".jpg", ".bmp", ".raw"

// `image`: uint8 {H, W, 3}. jpeg_quality only matters for kJpeg.
std::string EncodeImage(const torch::Tensor& image, ImageFormat format, int jpeg_quality = 90);

// The format is recognised from the bytes themselves; `name` (a path, or a record of
// a shard) is only used in error messages.
torch::Tensor DecodeImage(const std::string& bytes, const std::string& name);

// The format of encoded bytes by their signature (JPEG's SOI, BMP's "BM", our raw
// magic), as DecodeImage will treat them; nullopt for anything else. For evidence of
// which codec a run used (LoadTrace), not validation: DecodeImage still checks the rest.
std::optional<ImageFormat> SniffFormat(const std::string& bytes);

// Area-averaging resize (cv::INTER_AREA), as preprocessing pipelines shrink images.
torch::Tensor ResizeImage(const torch::Tensor& image, int64_t height, int64_t width);

}  // namespace trickbench::data
