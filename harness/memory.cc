#include "harness/memory.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "third_party/libtorch/compat.h"

namespace trickbench {
namespace {

// Above the default registration (0), so the wrapper replaces LibTorch's allocator;
// not the maximum, so an allocator someone installs on purpose later still can.
constexpr uint8_t kWrapperPriority = 100;

// A block handed out while a meter lived: what its free must subtract, and who frees it.
struct Block {
  size_t bytes;
  c10::DeleterFnPtr deleter;
  uint64_t generation;  // the meter it was counted for
};

// The blocks live now, by DataPtr context (what a deleter receives). A deleter is a
// bare function pointer with one word of context, so the size and the original deleter
// cannot ride along in the DataPtr without replacing its context; keeping the context
// as it was keeps data == context for the allocators where that held (raw_allocate()
// asserts it, copy-on-write needs it). Sharded so threads freeing at once rarely wait.
class BlockTable {
 public:
  void Insert(void* ctx, const Block& block) {
    Shard& s = ShardOf(ctx);
    std::lock_guard<std::mutex> lock(s.mutex);
    s.blocks.emplace(ctx, block);
  }
  bool Take(void* ctx, Block* block) {
    Shard& s = ShardOf(ctx);
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.blocks.find(ctx);
    if (it == s.blocks.end()) return false;
    *block = it->second;
    s.blocks.erase(it);
    return true;
  }

 private:
  struct alignas(64) Shard {
    std::mutex mutex;
    std::unordered_map<void*, Block> blocks;
  };
  Shard& ShardOf(void* ctx) {
    // Blocks are at least 16-byte aligned: the low bits carry no information.
    return shards_[(reinterpret_cast<uintptr_t>(ctx) >> 6) % shards_.size()];
  }
  std::array<Shard, 64> shards_;
};

// The process's counters. Leaked on purpose: tensors freed during static destruction
// still call CountedDelete.
struct State {
  std::atomic<bool> metering{false};    // a meter lives
  std::atomic<uint64_t> generation{0};  // the living meter's, 0 when none
  uint64_t last_generation = 0;         // written by meter constructors only
  std::atomic<int64_t> live{0};
  std::atomic<int64_t> peak{0};
  std::atomic<int64_t> allocations{0};
  c10::Allocator* inner = nullptr;  // the allocator the wrapper forwards to
  BlockTable blocks;
};

State& GetState() {
  static State* state = new State;
  return *state;
}

void RaisePeak(State& s, int64_t now) {
  int64_t peak = s.peak.load(std::memory_order_relaxed);
  while (now > peak && !s.peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

// The deleter of every block handed out while a meter lived; also raw_deleter(), so it
// may receive a raw_allocate()d pointer the table never saw (made while no meter
// lived): that one goes to the inner allocator's raw deleter, uncounted.
void CountedDelete(void* ctx) {
  State& s = GetState();
  Block block;
  if (!s.blocks.Take(ctx, &block)) {
    const c10::DeleterFnPtr raw = s.inner->raw_deleter();
    TORCH_INTERNAL_ASSERT(raw != nullptr, "CpuMemoryMeter: free of a block it never saw");
    raw(ctx);
    return;
  }
  // A block counted for an earlier meter is not this meter's: subtracting it would
  // take live bytes below what this region allocated.
  if (block.generation == s.generation.load(std::memory_order_acquire)) {
    s.live.fetch_sub(static_cast<int64_t>(block.bytes), std::memory_order_relaxed);
  }
  block.deleter(ctx);
}

class CountingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) TRICKBENCH_ALLOCATE_CONST override {
    State& s = GetState();
    c10::DataPtr ptr = s.inner->allocate(n);
    const uint64_t generation = s.generation.load(std::memory_order_acquire);
    // No meter: hand the block out as it came, so unmetered code pays nothing more.
    // No context (a 0-byte block): there is no free to intercept.
    if (generation == 0 || ptr.get_context() == nullptr) return ptr;
    const c10::DeleterFnPtr deleter = ptr.get_deleter();
    // In the table before the block is out: its free, on any thread, must find it.
    s.blocks.Insert(ptr.get_context(), Block{n, deleter, generation});
    const bool swapped = ptr.compare_exchange_deleter(deleter, &CountedDelete);
    TORCH_INTERNAL_ASSERT(swapped);
    s.allocations.fetch_add(1, std::memory_order_relaxed);
    const int64_t bytes = static_cast<int64_t>(n);
    RaisePeak(s, s.live.fetch_add(bytes, std::memory_order_relaxed) + bytes);
    return ptr;
  }

  c10::DeleterFnPtr raw_deleter() const override {
    return GetState().inner->raw_deleter() != nullptr ? &CountedDelete : nullptr;
  }

#if TRICKBENCH_ALLOCATOR_HAS_COPY_DATA
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    GetState().inner->copy_data(dest, src, count);
  }
#endif
};

void InstallOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    static CountingCpuAllocator* wrapper = new CountingCpuAllocator;
    State& s = GetState();
    s.inner = c10::GetCPUAllocator();
    // SetAllocator is not synchronised with GetAllocator: this runs once, on the thread
    // making the first meter, before the region it measures.
    c10::SetCPUAllocator(wrapper, kWrapperPriority);
    TORCH_CHECK(c10::GetCPUAllocator() == wrapper,
                "CpuMemoryMeter: the CPU allocator was installed at a priority above ",
                static_cast<int>(kWrapperPriority), "; CPU memory cannot be metered");
  });
}

}  // namespace

CpuMemoryMeter::CpuMemoryMeter() {
  InstallOnce();
  State& s = GetState();
  bool expected = false;
  if (!s.metering.compare_exchange_strong(expected, true)) {
    throw std::logic_error("CpuMemoryMeter: another meter is already counting (one at a time)");
  }
  s.live.store(0);
  s.peak.store(0);
  s.allocations.store(0);
  s.generation.store(++s.last_generation, std::memory_order_release);
}

CpuMemoryMeter::~CpuMemoryMeter() {
  State& s = GetState();
  s.generation.store(0, std::memory_order_release);
  s.metering.store(false);
}

int64_t CpuMemoryMeter::live_bytes() const { return GetState().live.load(); }
int64_t CpuMemoryMeter::peak_bytes() const { return GetState().peak.load(); }
int64_t CpuMemoryMeter::allocations() const { return GetState().allocations.load(); }
void CpuMemoryMeter::ResetPeak() { GetState().peak.store(GetState().live.load()); }

}  // namespace trickbench
