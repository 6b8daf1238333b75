// decoder_choice (B): decode JPEG with libjpeg-turbo's own API instead of OpenCV.
//
// The article's tip: for JPEG, try jpeg4py, which calls libjpeg-turbo directly, for speed.
// In C++ that is the project's decoder, cv::imdecode (through data/codec.h's DecodeImage),
// against libjpeg-turbo's own jpeg_create_decompress / jpeg_mem_src / jpeg_read_scanlines:
// graded as the direct call being faster. Its other sentence, OpenCV faster than PIL, is
// not covered: PIL is Python, and its cost over libjpeg-turbo is the interpreter's, which
// a C++ benchmark does not have. The same JPEG bytes (256 synthetic 128x128 images, quality 90) are
// held in memory, so neither storage nor the page cache is measured, and both variants
// deliver what DecodeImage returns: one contiguous uint8 {H, W, 3} tensor per image in
// OpenCV's channel order (BGR: libjpeg-turbo's JCS_EXT_BGR), each image decoded by a fresh
// decompressor as both libraries do per call. Debian's OpenCV links the same libjpeg-turbo
// and keeps its default IDCT (JDCT_ISLOW), so the pixels must be, and are, bitwise equal:
// the difference timed is OpenCV's layer, not the IDCT. Here (OpenCV 4.6) that layer asks
// libjpeg for RGB and swaps every pixel to BGR in its own scalar loop (perf: the one hot
// spot in libopencv_imgcodecs), decodes into a cv::Mat that DecodeImage then copies into
// the tensor, and probes the format and EXIF orientation; the direct variant has
// libjpeg-turbo's SIMD colour converter write BGR rows straight into the tensor. Evidence
// that a variant decoded through its own library: the body counts the images each path
// returned and the scanlines libjpeg handed out, reset at every body.
#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers
#include <jpeglib.h>

#include <stdexcept>

#include "data/codec.h"
#include "data/image_set.h"
#include "data/sample_store.h"
#include "determinism/seed.h"
#include "harness/trick.h"

#ifndef JCS_EXTENSIONS
#error "decoder_choice needs libjpeg-turbo (JCS_EXT_BGR), not the IJG libjpeg"
#endif

namespace {

using namespace trickbench::data;

constexpr int64_t kImages = 256;
constexpr int64_t kSide = 128;

// libjpeg reports errors by calling error_exit, which by default exits the process; we
// jump back to the setjmp in the function that called into libjpeg instead. Only libjpeg's
// C frames lie between the two, so no C++ destructor is skipped; the tensor is allocated
// outside both jumping functions.
struct Decompressor {
  jpeg_decompress_struct cinfo;
  struct Errors {
    jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
  } errors;
};

void JumpOnError(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<Decompressor::Errors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings are libjpeg's corrupt-data findings (a truncated stream included, which it would
// fill with grey): counted in num_warnings and failed on below, as DecodeImage fails on a
// truncated JPEG, instead of printed.
void Quiet(j_common_ptr) {}

// Header and decompressor start; false with errors.message set on failure.
bool Start(Decompressor* d, const std::string& bytes) {
  if (setjmp(d->errors.jump)) return false;
  jpeg_mem_src(&d->cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
               static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&d->cinfo, TRUE);
  d->cinfo.out_color_space = JCS_EXT_BGR;
  jpeg_start_decompress(&d->cinfo);
  return true;
}

// Every scanline straight into `pixels` (rows of width * 3 bytes), then the end of the
// stream; false with errors.message set on failure. Adds the rows libjpeg returned.
bool ReadPixels(Decompressor* d, uint8_t* pixels, int64_t* scanlines) {
  if (setjmp(d->errors.jump)) return false;
  const size_t row_bytes = static_cast<size_t>(d->cinfo.output_width) * 3;
  while (d->cinfo.output_scanline < d->cinfo.output_height) {
    JSAMPROW row = pixels + d->cinfo.output_scanline * row_bytes;
    *scanlines += jpeg_read_scanlines(&d->cinfo, &row, 1);
  }
  jpeg_finish_decompress(&d->cinfo);
  return true;
}

torch::Tensor DecodeWithLibjpeg(const std::string& bytes, const std::string& name,
                                int64_t* scanlines) {
  Decompressor d;
  d.cinfo.err = jpeg_std_error(&d.errors.pub);
  d.errors.pub.error_exit = JumpOnError;
  d.errors.pub.output_message = Quiet;
  jpeg_create_decompress(&d.cinfo);
  auto fail = [&](const std::string& why) {
    jpeg_destroy_decompress(&d.cinfo);
    throw std::runtime_error("libjpeg cannot decode " + name + " (" + std::to_string(bytes.size()) +
                             " bytes): " + why);
  };
  if (!Start(&d, bytes)) fail(d.errors.message);
  if (d.cinfo.output_components != 3) {
    fail(std::to_string(d.cinfo.output_components) + " output components, expected 3");
  }
  torch::Tensor out = torch::empty(
      {static_cast<int64_t>(d.cinfo.output_height), static_cast<int64_t>(d.cinfo.output_width), 3},
      torch::kUInt8);
  if (!ReadPixels(&d, out.data_ptr<uint8_t>(), scanlines)) fail(d.errors.message);
  if (d.errors.pub.num_warnings > 0) {
    char message[JMSG_LENGTH_MAX];
    (*d.errors.pub.format_message)(reinterpret_cast<j_common_ptr>(&d.cinfo), message);
    fail(std::string("corrupt data: ") + message);
  }
  jpeg_destroy_decompress(&d.cinfo);
  return out;
}

class DecoderChoice : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    // Encoded once per run (common/shared_data.h) and read into memory: decoding from
    // memory is what is timed, not the file system. The images' seed comes from the
    // harness's seeded generator: the decoded pixels are this trick's result, and they
    // must follow --seed (a run's processes share one seed, so one set).
    const FileStore store(SharedImageFiles(
        {.count = kImages, .height = kSide, .width = kSide, .seed = trickbench::HarnessRng()()},
        ImageFormat::kJpeg));
    jpegs_.clear();
    for (size_t i = 0; i < store.size(); ++i) {
      Sample sample = store.Read(i);
      jpegs_.push_back({std::move(sample.bytes), sample.label});
    }
  }

  void OpencvImdecode() {
    Reset();
    for (size_t i = 0; i < jpegs_.size(); ++i) {
      images_.push_back(DecodeImage(jpegs_[i].bytes, Name(i)));
      ++opencv_images_;
      decoded_bytes_ += static_cast<int64_t>(jpegs_[i].bytes.size());
    }
  }

  void LibjpegTurbo() {
    Reset();
    for (size_t i = 0; i < jpegs_.size(); ++i) {
      images_.push_back(DecodeWithLibjpeg(jpegs_[i].bytes, Name(i), &libjpeg_scanlines_));
      ++libjpeg_images_;
      decoded_bytes_ += static_cast<int64_t>(jpegs_[i].bytes.size());
    }
  }

  trickbench::Tensors Result() override { return {torch::stack(images_)}; }

  // Every image must have come through the variant's library, and none through the
  // other: both deliver the same pixels, so only the counts tell them apart. For libjpeg
  // the scanlines it returned must also add up to every row of every image.
  std::string Inactive(const std::string& variant) override {
    const bool direct = variant == "libjpeg_turbo";
    const int64_t want_opencv = direct ? 0 : kImages;
    const int64_t want_libjpeg = direct ? kImages : 0;
    if (opencv_images_ != want_opencv || libjpeg_images_ != want_libjpeg) {
      return "the run decoded " + std::to_string(opencv_images_) + " images with OpenCV and " +
             std::to_string(libjpeg_images_) + " with libjpeg directly, expected " +
             std::to_string(want_opencv) + " and " + std::to_string(want_libjpeg) + " (" + variant +
             " variant)";
    }
    if (libjpeg_scanlines_ != want_libjpeg * kSide) {
      return "libjpeg returned " + std::to_string(libjpeg_scanlines_) + " scanlines, expected " +
             std::to_string(want_libjpeg * kSide);
    }
    return "";
  }

  // decoded_bytes: the compressed JPEG bytes the run decoded (the same for both variants).
  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"images_per_run", static_cast<double>(opencv_images_ + libjpeg_images_)},
            {"decoded_bytes", static_cast<double>(decoded_bytes_)}};
  }

  int64_t ItemsPerRun() const override { return kImages; }

 private:
  void Reset() {
    images_.clear();
    images_.reserve(jpegs_.size());
    opencv_images_ = libjpeg_images_ = libjpeg_scanlines_ = decoded_bytes_ = 0;
  }

  static std::string Name(size_t i) { return "sample " + std::to_string(i); }

  std::vector<EncodedSample> jpegs_;
  std::vector<torch::Tensor> images_;  // the last run's
  int64_t opencv_images_ = 0, libjpeg_images_ = 0, libjpeg_scanlines_ = 0, decoded_bytes_ = 0;
};

}  // namespace

// The article's direction: OpenCV beats PIL. Here OpenCV is the baseline and the variant is
// the decoder PIL calls, so the article predicts the variant is slower (no figure given).
TRICKBENCH_TRICK(decoder_choice, DecoderChoice)
    .Category("Data loading")
    .Source("B")
    .Claim("for JPEG, try jpeg4py (libjpeg-turbo called directly); OpenCV faster than PIL")
    .Expect(trickbench::claim::Faster().ForVariant("libjpeg_turbo"))
    .Expect(trickbench::claim::Faster().NotCovered(
        "OpenCV against PIL: PIL is Python, its JPEG decoder libjpeg-turbo; a C++ benchmark has "
        "no interpreter to pay for"))
    .HostSide("JPEG decoding runs on the host; no device is involved")
    .Variant("opencv_imdecode", &DecoderChoice::OpencvImdecode)
    .Variant("libjpeg_turbo", &DecoderChoice::LibjpegTurbo)
    .Bitwise();
