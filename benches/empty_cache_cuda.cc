// CUDA half of empty_cache.cc: the caching allocator's figures and its emptyCache().
// Compiled only with --config=cuda (c10/cuda headers).
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstdint>

namespace trickbench::empty_cache_cuda {

void ReadCache(int device, int64_t* allocated_bytes, int64_t* reserved_bytes,
               int64_t* segments_allocated) {
  constexpr size_t kAggregate = 0;  // StatType::AGGREGATE
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device);
  *allocated_bytes = stats.allocated_bytes[kAggregate].current;
  *reserved_bytes = stats.reserved_bytes[kAggregate].current;
  *segments_allocated = stats.segment[kAggregate].allocated;  // cumulative: cudaMalloc calls
}

void EmptyCache() { c10::cuda::CUDACachingAllocator::emptyCache(); }

}  // namespace trickbench::empty_cache_cuda
