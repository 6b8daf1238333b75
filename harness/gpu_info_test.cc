#include "harness/gpu_info.h"

#include <gtest/gtest.h>

namespace trickbench {
namespace {

// The names are what cudaGetDeviceProperties reports on these devices.
TEST(PublishedPeak, KnowsTheDataCenterGpusByTheirReportedNames) {
  struct Case {
    const char* reported;
    const char* model;
    double tflops, gbps;
  };
  for (const Case& c : {
           Case{"NVIDIA H200", "H200 SXM 141GB", 989, 4800},
           Case{"NVIDIA H200 NVL", "H200 NVL", 835, 4800},
           Case{"NVIDIA H100 80GB HBM3", "H100 SXM5 80GB", 989, 3350},
           Case{"NVIDIA H100 PCIe", "H100 PCIe 80GB", 756, 2000},
           Case{"NVIDIA H100 NVL", "H100 NVL", 835, 3900},
           Case{"NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB", 312, 2039},
           Case{"NVIDIA A100 80GB PCIe", "A100 PCIe 80GB", 312, 1935},
           Case{"NVIDIA A100-SXM4-40GB", "A100 40GB", 312, 1555},
           Case{"NVIDIA A100-PCIE-40GB", "A100 40GB", 312, 1555},
           Case{"NVIDIA L40S", "L40S", 362, 864},
           Case{"NVIDIA L4", "L4", 121, 300},
           Case{"NVIDIA B200", "B200", 2250, 8000},
       }) {
    const auto peak = PublishedPeak(c.reported);
    ASSERT_TRUE(peak.has_value()) << c.reported;
    EXPECT_EQ(peak->model, c.model) << c.reported;
    EXPECT_EQ(peak->bf16_dense_tflops, c.tflops) << c.reported;
    EXPECT_EQ(peak->memory_gbps, c.gbps) << c.reported;
  }
}

TEST(PublishedPeak, MatchesWholeWordsOnly) {
  // "L4" must not claim the L40 (no entry) nor "A10" the A100's figures.
  EXPECT_FALSE(PublishedPeak("NVIDIA L40").has_value());
  EXPECT_FALSE(PublishedPeak("NVIDIA A10").has_value());
  EXPECT_FALSE(PublishedPeak("NVIDIA A100X").has_value());
  EXPECT_EQ(PublishedPeak("nvidia h100 pcie")->model, "H100 PCIe 80GB");  // case-blind
}

TEST(PublishedPeak, UnknownDevicesHaveNoPeak) {
  EXPECT_FALSE(PublishedPeak("").has_value());
  EXPECT_FALSE(PublishedPeak("NVIDIA GeForce RTX 4090").has_value());
  EXPECT_FALSE(PublishedPeak("Tesla V100-SXM2-16GB").has_value());
}

TEST(CudaVersionString, DecodesMajorAndMinor) {
  EXPECT_EQ(CudaVersionString(13000), "13.0");
  EXPECT_EQ(CudaVersionString(12040), "12.4");
  EXPECT_EQ(CudaVersionString(11080), "11.8");
  EXPECT_EQ(CudaVersionString(0), "none");
  EXPECT_EQ(CudaVersionString(-1), "none");
}

TEST(CudnnVersionString, DecodesBothEncodings) {
  EXPECT_EQ(CudnnVersionString(91002), "9.10.2");
  EXPECT_EQ(CudnnVersionString(90100), "9.1.0");
  EXPECT_EQ(CudnnVersionString(8902), "8.9.2");
  EXPECT_EQ(CudnnVersionString(0), "none");
}

TEST(PeakVerdict, ComparesWithTheHealthyShare) {
  EXPECT_EQ(PeakVerdict(700, 989.0, 0.5), "ok");
  EXPECT_EQ(PeakVerdict(494.5, 989.0, 0.5), "ok");  // exactly at the threshold
  EXPECT_EQ(PeakVerdict(400, 989.0, 0.5), "LOW");
  EXPECT_EQ(PeakVerdict(400, std::nullopt, 0.5), "unknown");
  EXPECT_EQ(PeakVerdict(400, 0.0, 0.5), "unknown");
}

}  // namespace
}  // namespace trickbench
