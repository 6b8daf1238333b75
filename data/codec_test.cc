#include <torch/utils.h>

#include "data/codec.h"

#include <gtest/gtest.h>

namespace trickbench::data {
namespace {

torch::Tensor TestImage() {
  torch::manual_seed(5);
  // Smooth enough that JPEG keeps it close.
  return (torch::linspace(0, 200, 32 * 24 * 3).reshape({32, 24, 3}) +
          torch::randint(0, 8, {32, 24, 3}))
      .to(torch::kUInt8);
}

std::string DecodeError(const std::string& bytes, const std::string& name) {
  try {
    DecodeImage(bytes, name);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Codec, RawAndBmpRoundTripExactly) {
  const torch::Tensor img = TestImage();
  for (ImageFormat f : {ImageFormat::kRaw, ImageFormat::kBmp}) {
    const torch::Tensor back = DecodeImage(EncodeImage(img, f), "x" + Extension(f));
    EXPECT_TRUE(torch::equal(back, img)) << FormatName(f);
  }
}

TEST(Codec, JpegRoundTripIsCloseAndSmaller) {
  const torch::Tensor img = TestImage();
  const std::string jpeg = EncodeImage(img, ImageFormat::kJpeg, 95);
  const torch::Tensor back = DecodeImage(jpeg, "x.jpg");
  ASSERT_EQ(back.sizes(), img.sizes());
  const double mad = (back.to(torch::kFloat) - img.to(torch::kFloat)).abs().mean().item<double>();
  EXPECT_LT(mad, 6.0);
  EXPECT_GT(mad, 0.0);  // lossy: if this were 0 we would not be encoding JPEG
  EXPECT_LT(jpeg.size(), EncodeImage(img, ImageFormat::kBmp).size());
}

TEST(Codec, SniffFormatNamesTheEncoder) {
  const torch::Tensor img = TestImage();
  for (ImageFormat f : {ImageFormat::kJpeg, ImageFormat::kBmp, ImageFormat::kRaw}) {
    EXPECT_EQ(SniffFormat(EncodeImage(img, f)), f) << FormatName(f);
  }
  EXPECT_EQ(SniffFormat(std::string(300, 'z')), std::nullopt);
  EXPECT_EQ(SniffFormat(""), std::nullopt);
}

TEST(Codec, ResizeGivesTheAskedShape) {
  const torch::Tensor small = ResizeImage(TestImage(), 16, 12);
  EXPECT_EQ(small.sizes(), (std::vector<int64_t>{16, 12, 3}));
  EXPECT_EQ(small.scalar_type(), torch::kUInt8);
}

TEST(Codec, BadBytesGiveAnErrorNamingTheSample) {
  const torch::Tensor img = TestImage();
  const std::string jpeg = EncodeImage(img, ImageFormat::kJpeg);
  const std::string raw = EncodeImage(img, ImageFormat::kRaw);
  const std::string garbage(300, 'z');
  struct Case {
    std::string bytes, name, why;
  } cases[] = {
      {garbage, "garbage.jpg", "not a JPEG"},
      {"", "empty.bmp", "empty"},
      {jpeg.substr(0, jpeg.size() / 2), "half.jpg", "truncated JPEG"},
      {raw.substr(0, raw.size() - 1), "short.raw", "needs"},
      {raw.substr(0, 10), "header.raw", "header"},
  };
  for (const auto& c : cases) {
    const std::string error = DecodeError(c.bytes, c.name);
    EXPECT_NE(error.find(c.name), std::string::npos) << error;
    EXPECT_NE(error.find(c.why), std::string::npos) << error;
  }
}

TEST(Codec, RejectsImagesThatAreNotUint8Rgb) {
  EXPECT_THROW(EncodeImage(torch::zeros({4, 4, 3}), ImageFormat::kBmp), std::invalid_argument);
  EXPECT_THROW(EncodeImage(torch::zeros({4, 4}, torch::kUInt8), ImageFormat::kRaw),
               std::invalid_argument);
}

}  // namespace
}  // namespace trickbench::data
