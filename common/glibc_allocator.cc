#include "common/glibc_allocator.h"

#include <malloc.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace trickbench {
namespace {

struct Thresholds {
  int mmap_bytes, trim_bytes;
};

Thresholds ThresholdsOf(const std::string& regime) {
  if (regime == kReusedPages) return {32 << 20, 512 << 20};
  if (regime == kFreshPages) return {128 << 10, 128 << 10};
  throw std::invalid_argument("allocator regime \"" + regime + "\" is neither \"" +
                              std::string(kReusedPages) + "\" nor \"" + kFreshPages + "\"");
}

std::string Size(int bytes) {
  return bytes >= (1 << 20) ? std::to_string(bytes >> 20) + " MiB"
                            : std::to_string(bytes >> 10) + " KiB";
}

// The heap's free memory taken out of use while "fresh" is in effect (see Drain).
std::vector<void*>& Drained() {
  static std::vector<void*> blocks;
  return blocks;
}

// Why drain. The mmap threshold decides only for a request that no free chunk of the
// heap can serve: glibc looks in its bins first. So after a case in "reused" had freed
// its 4 MB temporaries into the heap, the next case's "fresh" temporaries were carved
// from those chunks, faulting nothing, in some processes and not in others (fuse_pointwise
// fresh: 0 or 833 faults per iteration in one process, 1025 or 5125 in the rest; the
// process values of zero_grad_set_to_none fresh were 1.05x or 1.42x by which held). So
// "fresh" first returns the heap's free pages to the kernel (malloc_trim) and then holds
// every free chunk of at least `block` bytes as blocks of that size, untouched, until a
// request of that size has to be a new mapping (one more mmapped chunk in mallinfo2);
// "reused" gives them back. At most kMaxDrained blocks, in case a libc never maps.
constexpr size_t kMaxDrained = 1 << 16;

void Drain(size_t block) {
  malloc_trim(0);
  while (Drained().size() < kMaxDrained) {
    const size_t mapped_before = mallinfo2().hblks;
    void* p = std::malloc(block);
    if (p == nullptr) return;
    if (mallinfo2().hblks > mapped_before) {
      std::free(p);
      return;
    }
    Drained().push_back(p);
  }
}

void Undrain() {
  for (void* p : Drained()) std::free(p);
  Drained().clear();
}

}  // namespace

void ApplyAllocatorRegime(const std::string& regime) {
  const Thresholds t = ThresholdsOf(regime);
  mallopt(M_MMAP_THRESHOLD, t.mmap_bytes);
  mallopt(M_TRIM_THRESHOLD, t.trim_bytes);
  if (regime == kFreshPages) {
    Drain(static_cast<size_t>(t.mmap_bytes));
  } else {
    Undrain();
  }
}

std::string DescribeAllocatorRegime(const std::string& regime) {
  const Thresholds t = ThresholdsOf(regime);
  return regime + " (glibc mmap threshold " + Size(t.mmap_bytes) + ", trim threshold " +
         Size(t.trim_bytes) + ", fixed)";
}

}  // namespace trickbench
