// The regime glibc's malloc serves large blocks in, fixed for a whole process, so that
// what an allocation costs does not depend on the process's history.
//
//   int main() {
//     trickbench::ApplyAllocatorRegime(trickbench::kDefaultAllocatorRegime);  // first thing
//     ...
//   }
//
// Why fixed. By default glibc's mmap threshold starts at 128 KiB and rises to the
// largest mmapped block the process has freed (up to 32 MiB), and the heap is trimmed
// whenever its free top exceeds twice that. So whether a 2 MB temporary is a fresh
// mapping the kernel faults in page by page, heap pages already held, or heap pages
// trimmed and grown again on every call, depends on what the process freed before: in
// trickbench, on whether it wrote the run's data set or ran the full checks (process 1
// of a run) or not (the later ones). Measured here, 9 tricks x 5 processes under
// run_all, glibc's defaults against this file's "reused": the sd of a setting's log
// speedup over processes fell from 0.56 to 0.07 (depthwise_mac), 0.38 to 0.04
// (preprocess_offline), 0.36 to 0.06 (elementwise_cost), 0.46 to 0.14
// (zero_copy_from_blob n1048576); the median over the 13 settings from 0.093 to 0.040.
// Before, process 1 gave depthwise_mac 11x where the later ones gave 4x: a spread no
// number of processes averages away, since it is two populations.
//
// The default, "reused", is the steady state of a long-lived training process: the
// threshold at glibc's 32 MiB maximum (what it rises to once such blocks have been
// freed) and no trimming below 512 MiB, so buffers under 32 MiB come from pages the
// process holds. "fresh" is a process that has freed nothing large yet: every block
// over 128 KiB a new mapping. Cases that measure that difference name the regime as an
// axis (harness/allocator_regime.h). To time a workload outside trickbench in the
// default regime: GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:
// glibc.malloc.trim_threshold=536870912 (one word, no space).
#pragma once

#include <string>

namespace trickbench {

// Large temporaries from pages the process already holds (mmap threshold 32 MiB, heap
// never trimmed below 512 MiB).
inline constexpr char kReusedPages[] = "reused";
// Every block over 128 KiB a new mapping, faulted in on first touch (threshold and trim
// fixed at glibc's initial 128 KiB; the heap's free chunks of that size, which glibc
// would serve such a block from first, are held out of use until "reused" is applied).
inline constexpr char kFreshPages[] = "fresh";
// What every trickbench process runs in unless a case names its own.
inline constexpr char kDefaultAllocatorRegime[] = "reused";

// Fixes glibc's thresholds for `regime` (setting them turns glibc's dynamic threshold
// off, so the regime holds whatever the process frees later). Throws
// std::invalid_argument naming any other value.
void ApplyAllocatorRegime(const std::string& regime);

// "reused (glibc mmap threshold 32 MiB, trim threshold 512 MiB, fixed)": the words a
// result's context records for `regime`. Throws as ApplyAllocatorRegime.
std::string DescribeAllocatorRegime(const std::string& regime);

}  // namespace trickbench
