// The regimes do what their names say, measured in page faults of a 4 MB temporary, and
// a regime holds whatever the process frees after it is set (glibc's dynamic threshold
// is off) or had freed before.
#include "common/glibc_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "common/minor_faults_testing.h"

namespace trickbench {
namespace {

constexpr size_t kTemporary = 4 << 20;

// Writes one byte of every page through a volatile pointer: a memset of a block that is
// freed next may be dropped by the compiler, and then only the pages it kept fault.
void TouchPages(char* p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 4096) static_cast<volatile char*>(p)[i] = 1;
}

void TouchAndFree(size_t bytes) {
  auto* p = static_cast<char*>(std::malloc(bytes));
  ASSERT_NE(p, nullptr);
  TouchPages(p, bytes);
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

// A case in "reused" leaves a large free chunk in the middle of the heap (a small block
// after it keeps it off the top); glibc serves a request from its free chunks before it
// looks at the mmap threshold, so "fresh" must take that chunk out of use, or its
// temporaries reuse the chunk's pages and fault nothing.
TEST(GlibcAllocator, FreshHoldsAfterAReusedCaseLeftFreeChunksInTheHeap) {
  ApplyAllocatorRegime(kReusedPages);
  auto* large = static_cast<char*>(std::malloc(16 << 20));
  ASSERT_NE(large, nullptr);
  TouchPages(large, 16 << 20);
  void* after = std::malloc(1024);
  std::free(large);
  ApplyAllocatorRegime(kFreshPages);
  // The first temporary after the switch, which glibc carved from the freed chunk.
  EXPECT_GE(MinorFaultsPerCall([] { TouchAndFree(kTemporary); }, /*settle=*/0, /*calls=*/1), 500);
  EXPECT_GE(FaultsPerTemporary(), 500);
  ApplyAllocatorRegime(kDefaultAllocatorRegime);
  EXPECT_LE(FaultsPerTemporary(), 10);
  std::free(after);
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
