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
// the report beside a variant's time, confirm which regime was in effect. Every other
// case runs in the process's fixed default (common/glibc_allocator.h), "reused". On CUDA
// the axis has the one value "" (the caching allocator is the regime for device memory)
// and adds nothing to case names.
#pragma once

#include "common/glibc_allocator.h"
#include "harness/trick.h"

namespace trickbench {

inline constexpr char kAllocatorAxis[] = "allocator";

// String("allocator", {"reused", "fresh"}), "" on CUDA.
Axis AllocatorRegimeAxis();

// Sets glibc's allocator to `instance`'s regime when its case names one (the allocator
// axis, not "", on the CPU), else to kDefaultAllocatorRegime, so that a case never
// inherits the regime of the one before it. Then instance's SetUp.
void SetUpInstance(Trick& trick, const Instance& instance);

}  // namespace trickbench
