#include "harness/context.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <torch/version.h>

#include <map>

namespace trickbench {
namespace {

TEST(Context, HasEveryKeyAComparisonNeeds) {
  at::set_num_threads(2);
  const Context c = CaptureContext(torch::kCPU);
  std::map<std::string, std::string> m(c.begin(), c.end());
  for (const char* key : {"torch_version", "device", "intra_op_threads", "blas", "blas_library",
                          "cpu_model", "git_revision", "determinism", "cuda_available"}) {
    EXPECT_TRUE(m.count(key)) << key;
  }
  EXPECT_EQ(m["torch_version"], TORCH_VERSION);
  EXPECT_EQ(m["device"], "cpu");
  EXPECT_EQ(m["intra_op_threads"], "2");
  EXPECT_NE(m["determinism"].find("deterministic_algorithms="), std::string::npos);
}

TEST(Context, BlasNameFromLibraryPath) {
  EXPECT_EQ(BlasName("/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3"), "openblas");
  EXPECT_EQ(BlasName("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"), "reference blas (netlib)");
  EXPECT_EQ(BlasName("/opt/intel/libmkl_rt.so.2"), "mkl");
  EXPECT_EQ(BlasName(""), "none loaded");
}

TEST(Context, NamesTheBlasLibTorchUses) {
  // A matmul makes sure a BLAS library is loaded when there is one to load (Debian's
  // LibTorch: OpenBLAS); the wheels link MKL into libtorch_cpu, named by the build.
  (void)torch::mm(torch::ones({8, 8}), torch::ones({8, 8}));
  const Context c = CaptureContext(torch::kCPU);
  std::map<std::string, std::string> m(c.begin(), c.end());
  EXPECT_NE(m["blas"], "none loaded");
  EXPECT_NE(m["blas"], "unknown") << m["blas_library"];
  EXPECT_NE(m["blas_library"], "none");
  EXPECT_NE(m["blas_version"], "unknown") << m["blas"];
  if (at::hasMKLDNN()) {
    EXPECT_EQ(m["onednn"].rfind("v", 0), 0u) << m["onednn"];
  }
  EXPECT_NE(m["cpu_capability"], "unknown");
  EXPECT_NE(m["parallel_backend"], "unknown");
}

// Excerpts of at::show_config() from the two LibTorch builds trickbench supports.
constexpr char kWheelConfig[] =
    "PyTorch built with:\n"
    "  - Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605 for Intel(R) 64 "
    "architecture applications\n"
    "  - Intel(R) MKL-DNN v3.10.2 (Git Hash f1d471933dc852f956fd05389f9313c7148783d5)\n"
    "  - CPU capability usage: AVX512\n"
    "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CUDA_VERSION=13.0, LAPACK_INFO=mkl, \n";
constexpr char kDebianConfig[] =
    "PyTorch built with:\n"
    "  - Intel(R) MKL-DNN v2.6.3 (Git Hash N/A)\n"
    "  - CPU capability usage: AVX2\n"
    "  - Build settings: BLAS_INFO=generic, BUILD_TYPE=RelWithDebInfo, LAPACK_INFO=generic, \n";

TEST(Context, ReadsLibTorchsBuildConfiguration) {
  EXPECT_EQ(BuildSetting(kWheelConfig, "BLAS_INFO"), "mkl");
  EXPECT_EQ(BuildSetting(kWheelConfig, "CUDA_VERSION"), "13.0");
  EXPECT_EQ(BuildSetting(kWheelConfig, "INFO"), "");  // whole keys only, not LAPACK_INFO's tail
  EXPECT_EQ(BuildSetting(kDebianConfig, "CUDA_VERSION"), "");
  EXPECT_EQ(ConfigLineAfter(kWheelConfig, "MKL-DNN "),
            "v3.10.2 (Git Hash f1d471933dc852f956fd05389f9313c7148783d5)");
  EXPECT_EQ(ConfigLineAfter(kDebianConfig, "CPU capability usage: "), "AVX2");
  EXPECT_EQ(ConfigLineAfter(kDebianConfig, "Math Kernel Library Version "), "");
}

TEST(Context, StaticMklIsNamedFromTheBuild) {
  const std::string wheel_lib = "/v/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so";
  const BlasInUse wheel = DescribeBlas(wheel_lib, kWheelConfig);
  EXPECT_EQ(wheel.name, "mkl");
  EXPECT_EQ(wheel.library, "linked into libtorch_cpu");
  EXPECT_EQ(wheel.version,
            "MKL 2024.2-Product Build 20240605 for Intel(R) 64 architecture applications");
  // A system BLAS that provides sgemm_ wins over the build's words: it takes the calls.
  const std::string openblas = "/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3";
  const BlasInUse interposed = DescribeBlas(openblas, kWheelConfig);
  EXPECT_EQ(interposed.name, "openblas");
  EXPECT_EQ(interposed.library, openblas);
  EXPECT_EQ(DescribeBlas(openblas, kDebianConfig).name, "openblas");
  // Nothing at all is said plainly.
  const BlasInUse none = DescribeBlas("", kDebianConfig);
  EXPECT_EQ(none.name, "none loaded");
  EXPECT_EQ(none.library, "none");
  EXPECT_EQ(none.version, "unknown");
}

// The provider is what the lookup order resolves, not whatever is loaded: a BLAS opened
// later (after libtorch_cpu) takes no calls over, and the answer must not change.
TEST(Context, BlasProviderFollowsTheLookupOrderNotWhatIsLoaded) {
  const std::string before = BlasProvider();
  ASSERT_FALSE(before.empty()) << "no sgemm_ in this process: LibTorch has no BLAS";
  void* late = dlopen("libblas.so.3", RTLD_NOW | RTLD_GLOBAL);
  if (late == nullptr) GTEST_SKIP() << "no system libblas.so.3 to open: " << dlerror();
  EXPECT_EQ(BlasProvider(), before);
  if (before.find("libtorch_cpu") != std::string::npos) {
    // The wheel: a system BLAS is loaded now, and the context still names MKL.
    EXPECT_NE(LoadedBlasLibrary(), "");
    std::map<std::string, std::string> m;
    for (const auto& [k, v] : CaptureContext(torch::kCPU)) m[k] = v;
    EXPECT_EQ(m["blas_library"], "linked into libtorch_cpu");
  }
  dlclose(late);
}

TEST(Context, GitRevisionHonoursTheOverride) {
  setenv("TRICKBENCH_GIT_REVISION", "abc123", 1);
  EXPECT_EQ(GitRevision(), "abc123");
  unsetenv("TRICKBENCH_GIT_REVISION");
}

}  // namespace
}  // namespace trickbench
