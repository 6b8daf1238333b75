#include "harness/context.h"

#include <gtest/gtest.h>

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

TEST(Context, LoadedBlasIsWhatLibTorchUses) {
  // A matmul makes sure the BLAS library is loaded, then it must be found by name.
  (void)torch::mm(torch::ones({8, 8}), torch::ones({8, 8}));
  const std::string lib = LoadedBlasLibrary();
  EXPECT_FALSE(lib.empty());
  EXPECT_NE(BlasName(lib), "unknown") << lib;
}

TEST(Context, GitRevisionHonoursTheOverride) {
  setenv("TRICKBENCH_GIT_REVISION", "abc123", 1);
  EXPECT_EQ(GitRevision(), "abc123");
  unsetenv("TRICKBENCH_GIT_REVISION");
}

}  // namespace
}  // namespace trickbench
