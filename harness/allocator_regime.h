// The CPU allocator regime a case runs in, as a case axis: whether a variant's large
// temporaries reuse pages the process already has, or are fresh mappings the kernel
// must fault in on first touch. What an allocation-heavy variant costs on the CPU depends
// on it, and glibc picks it from the process's history: its mmap threshold rises to the
// largest block freed so far, so in a process that has freed a bigger block (trickbench's,
// after other cases; a long training run) a 4 MB temporary comes from the heap, reused,
// while in a process holding only that work every 4 MB temporary is a new mapping. Tried
// here, a composed GELU of 1M floats ran 2.9 ms with 0 faults per iteration in the first
// regime and 7.1 ms with about 3,000 in the second.
//
//   TRICKBENCH_TRICK(fuse_pointwise, FusePointwise)
//       .Axis(trickbench::Axis::Int("n", {1 << 20}))
//       .Axis(trickbench::AllocatorRegimeAxis())   // cases n1048576_reused, n1048576_fresh
//
// The harness applies the case's regime before SetUp (SetUpInstance), so both the checks
// and the timed rounds of a case run in it; the rounds' faults per iteration, shown in
// the report beside a variant's time, confirm which regime was in effect. On CUDA the
// axis has the one value "" (the caching allocator is the regime there) and adds nothing
// to case names.
#pragma once

#include "harness/trick.h"

namespace trickbench {

inline constexpr char kAllocatorAxis[] = "allocator";
// "reused": glibc's mmap threshold fixed at its 32 MiB maximum, heap never trimmed: every
// buffer under 32 MiB is served from pages already mapped.
inline constexpr char kReusedPages[] = "reused";
// "fresh": the threshold fixed at glibc's 128 KiB default: every buffer over it is a new
// mapping, faulted in page by page, as in a process that has freed nothing larger.
inline constexpr char kFreshPages[] = "fresh";

// String("allocator", {"reused", "fresh"}), "" on CUDA.
Axis AllocatorRegimeAxis();

// Sets glibc's allocator to `instance`'s regime when its case has the allocator axis
// (and it is not ""); else leaves the allocator as it is. Then instance's SetUp.
void SetUpInstance(Trick& trick, const Instance& instance);

// The regime alone (for tests): kReusedPages or kFreshPages; throws std::invalid_argument
// naming any other value.
void ApplyAllocatorRegime(const std::string& regime);

}  // namespace trickbench
