#include "data/codec.h"

#include <cstring>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>
#include <vector>

namespace trickbench::data {
namespace {

constexpr char kRawMagic[8] = {'T', 'B', 'R', 'A', 'W', '0', '0', '1'};
constexpr size_t kRawHeader = 16;  // magic + uint16 height, width, channels, pad

void CheckImage(const torch::Tensor& image, const char* what) {
  if (image.dim() != 3 || image.size(2) != 3 || image.scalar_type() != torch::kUInt8) {
    throw std::invalid_argument(std::string(what) + ": expected a uint8 {H, W, 3} image, got " +
                                c10::toString(image.scalar_type()) + " of " +
                                std::to_string(image.dim()) + " dims");
  }
}

// A view of the tensor's pixels as a cv::Mat (no copy); the tensor must outlive it.
cv::Mat AsMat(const torch::Tensor& contiguous) {
  return cv::Mat(static_cast<int>(contiguous.size(0)), static_cast<int>(contiguous.size(1)),
                 CV_8UC3, contiguous.data_ptr<uint8_t>());
}

torch::Tensor FromMat(const cv::Mat& mat) {
  torch::Tensor out = torch::empty({mat.rows, mat.cols, 3}, torch::kUInt8);
  const size_t row_bytes = static_cast<size_t>(mat.cols) * 3;
  for (int r = 0; r < mat.rows; ++r) {
    std::memcpy(out.data_ptr<uint8_t>() + r * row_bytes, mat.ptr(r), row_bytes);
  }
  return out;
}

[[noreturn]] void Corrupt(const std::string& name, size_t bytes, const std::string& why) {
  throw std::runtime_error("cannot decode image " + name + " (" + std::to_string(bytes) +
                           " bytes): " + why);
}

}  // namespace

std::string FormatName(ImageFormat format) {
  switch (format) {
    case ImageFormat::kJpeg:
      return "jpeg";
    case ImageFormat::kBmp:
      return "bmp";
    case ImageFormat::kRaw:
      return "raw";
  }
  return "?";
}

std::string Extension(ImageFormat format) {
  switch (format) {
    case ImageFormat::kJpeg:
      return ".jpg";
    case ImageFormat::kBmp:
      return ".bmp";
    case ImageFormat::kRaw:
      return ".raw";
  }
  return "";
}

std::string EncodeImage(const torch::Tensor& image, ImageFormat format, int jpeg_quality) {
  CheckImage(image, "EncodeImage");
  const torch::Tensor c = image.contiguous();
  if (format == ImageFormat::kRaw) {
    std::string out(kRawHeader + c.numel(), '\0');
    std::memcpy(out.data(), kRawMagic, sizeof kRawMagic);
    const uint16_t dims[3] = {static_cast<uint16_t>(c.size(0)), static_cast<uint16_t>(c.size(1)),
                              static_cast<uint16_t>(c.size(2))};
    std::memcpy(out.data() + sizeof kRawMagic, dims, sizeof dims);
    std::memcpy(out.data() + kRawHeader, c.data_ptr<uint8_t>(), c.numel());
    return out;
  }
  std::vector<uchar> buf;
  std::vector<int> params;
  if (format == ImageFormat::kJpeg) params = {cv::IMWRITE_JPEG_QUALITY, jpeg_quality};
  if (!cv::imencode(Extension(format), AsMat(c), buf, params)) {
    throw std::runtime_error("OpenCV could not encode a " + FormatName(format) + " image");
  }
  return std::string(buf.begin(), buf.end());
}

std::optional<ImageFormat> SniffFormat(const std::string& bytes) {
  const size_t n = bytes.size();
  if (n >= sizeof kRawMagic && std::memcmp(bytes.data(), kRawMagic, sizeof kRawMagic) == 0) {
    return ImageFormat::kRaw;
  }
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  if (n >= 2 && u[0] == 0xFF && u[1] == 0xD8) return ImageFormat::kJpeg;
  if (n >= 2 && u[0] == 'B' && u[1] == 'M') return ImageFormat::kBmp;
  return std::nullopt;
}

torch::Tensor DecodeImage(const std::string& bytes, const std::string& name) {
  const size_t n = bytes.size();
  if (n >= sizeof kRawMagic && std::memcmp(bytes.data(), kRawMagic, sizeof kRawMagic) == 0) {
    if (n < kRawHeader) Corrupt(name, n, "raw header cut short");
    uint16_t dims[3];
    std::memcpy(dims, bytes.data() + sizeof kRawMagic, sizeof dims);
    const size_t want = kRawHeader + size_t{dims[0]} * dims[1] * dims[2];
    if (dims[2] != 3 || n != want) {
      Corrupt(name, n,
              "raw image of " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
                  std::to_string(dims[2]) + " needs " + std::to_string(want) +
                  " bytes with 3 channels");
    }
    torch::Tensor out = torch::empty({dims[0], dims[1], 3}, torch::kUInt8);
    std::memcpy(out.data_ptr<uint8_t>(), bytes.data() + kRawHeader, n - kRawHeader);
    return out;
  }
  // libjpeg fills a truncated JPEG with grey and only warns; a JPEG must end in EOI.
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  if (n >= 2 && u[0] == 0xFF && u[1] == 0xD8 && (n < 4 || u[n - 2] != 0xFF || u[n - 1] != 0xD9)) {
    Corrupt(name, n, "truncated JPEG (no end-of-image marker)");
  }
  if (n == 0) Corrupt(name, n, "empty");
  const cv::Mat encoded(1, static_cast<int>(n), CV_8UC1, const_cast<char*>(bytes.data()));
  cv::Mat mat;
  try {
    mat = cv::imdecode(encoded, cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {
    Corrupt(name, n, std::string("OpenCV: ") + e.what());
  }
  if (mat.empty()) Corrupt(name, n, "not a JPEG, BMP or raw image, or corrupt");
  return FromMat(mat);
}

torch::Tensor ResizeImage(const torch::Tensor& image, int64_t height, int64_t width) {
  CheckImage(image, "ResizeImage");
  const torch::Tensor c = image.contiguous();
  cv::Mat out;
  cv::resize(AsMat(c), out, cv::Size(static_cast<int>(width), static_cast<int>(height)), 0, 0,
             cv::INTER_AREA);
  return FromMat(out);
}

}  // namespace trickbench::data
