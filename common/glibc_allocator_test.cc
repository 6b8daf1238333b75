// The regimes do what their names say, measured in page faults of a 4 MB temporary, and
// a regime holds whatever the process frees after it is set (glibc's dynamic threshold
// is off).
#include "common/glibc_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/minor_faults_testing.h"

namespace trickbench {
namespace {

constexpr size_t kTemporary = 4 << 20;

void TouchAndFree(size_t bytes) {
  auto* p = static_cast<char*>(std::malloc(bytes));
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, bytes);
  // Keeps the compiler from dropping the block.
  volatile char sink = p[bytes - 1];
  (void)sink;
  std::free(p);
}

double FaultsPerTemporary() {
  return MinorFaultsPerCall([] { TouchAndFree(kTemporary); }, /*settle=*/10);
}

TEST(GlibcAllocator, FreshPagesFaultEveryTemporaryInAndReusedPagesDoNot) {
  ApplyAllocatorRegime(kFreshPages);
  const double fresh = FaultsPerTemporary();
  ApplyAllocatorRegime(kReusedPages);
  const double reused = FaultsPerTemporary();
  // 4 MB is 1024 pages of 4 KiB (fewer faults where the kernel maps huge pages).
  EXPECT_GE(fresh, 500) << "fresh regime: " << fresh << " faults per 4 MB temporary";
  EXPECT_LE(reused, 10) << "reused regime: " << reused << " faults per 4 MB temporary";
}

// Under glibc's defaults, freeing a 16 MB mapping would raise the threshold to 16 MB and
// make the 4 MB temporaries heap blocks; fixed "fresh" keeps them mappings.
TEST(GlibcAllocator, ARegimeHoldsAfterTheProcessFreesALargerBlock) {
  ApplyAllocatorRegime(kFreshPages);
  TouchAndFree(16 << 20);
  EXPECT_GE(FaultsPerTemporary(), 500);
  ApplyAllocatorRegime(kDefaultAllocatorRegime);
}

TEST(GlibcAllocator, TheDefaultIsReusedAndUnknownRegimesAreRefusedByName) {
  EXPECT_STREQ(kDefaultAllocatorRegime, kReusedPages);
  EXPECT_EQ(DescribeAllocatorRegime(kReusedPages),
            "reused (glibc mmap threshold 32 MiB, trim threshold 512 MiB, fixed)");
  EXPECT_EQ(DescribeAllocatorRegime(kFreshPages),
            "fresh (glibc mmap threshold 128 KiB, trim threshold 128 KiB, fixed)");
  try {
    ApplyAllocatorRegime("warm");
    FAIL() << "\"warm\" was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"warm\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(DescribeAllocatorRegime(""), std::invalid_argument);
}

}  // namespace
}  // namespace trickbench
