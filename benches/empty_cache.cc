// empty_cache (B): what torch.cuda.empty_cache() frees, and what the next step pays.
//
// One training step of the shared MLP on a batch of 4096 (activations of 32 MiB per
// layer), then either nothing (keep_cache) or CUDACachingAllocator::emptyCache()
// (empty_cache_each_step). After the step the activations are dead, but the caching
// allocator keeps their blocks reserved for the next step; emptyCache() returns every
// unused cached block to the driver (cudaFree, which synchronizes), so the memory other
// processes (and nvidia-smi) see drops to what live tensors (parameters, grads,
// momentum) occupy, and the next step must cudaMalloc its activations again. The peak
// within a step does not change: the article notes that too.
//
// Counters, read by the body right after the step (and the call): the reserved and
// allocated bytes, what the call released, and the cudaMalloc calls the step made
// (segments the allocator created). Inactive(): the variant must have released cached
// bytes (evidence from the allocator, not a flag: the baseline's body releases none).
// Both variants train identically: parameters bitwise equal. The step is about 260 GFLOP,
// so an H200 times a real step and the re-allocation it pays for, not launches.
// CUDA only: the caching allocator's calls live in empty_cache_cuda.cc (--config=cuda).
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>

#include <stdexcept>

#include "harness/trick.h"
#include "workloads/workloads.h"

#ifdef TRICKBENCH_CUDA
namespace trickbench::empty_cache_cuda {
// Defined in empty_cache_cuda.cc.
void ReadCache(int device, int64_t* allocated_bytes, int64_t* reserved_bytes,
               int64_t* segments_allocated);
void EmptyCache();
}  // namespace trickbench::empty_cache_cuda
#endif

namespace {

namespace wl = trickbench::workloads;

constexpr int64_t kBatch = 4096;
constexpr wl::MlpSize kMlp{.in = 1024, .hidden = 2048, .out = 10, .layers = 3};

struct CacheState {
  int64_t allocated_bytes = 0, reserved_bytes = 0, segments_allocated = 0;
};

CacheState ReadCache(const torch::Device& device) {
  CacheState s;
#ifdef TRICKBENCH_CUDA
  trickbench::empty_cache_cuda::ReadCache(device.has_index() ? device.index() : 0,
                                          &s.allocated_bytes, &s.reserved_bytes,
                                          &s.segments_allocated);
  return s;
#else
  throw std::runtime_error(
      "empty_cache reads the CUDA caching allocator: build with --config=cuda");
#endif
}

void EmptyCache() {
#ifdef TRICKBENCH_CUDA
  trickbench::empty_cache_cuda::EmptyCache();
#else
  throw std::runtime_error(
      "empty_cache calls the CUDA caching allocator: build with --config=cuda");
#endif
}

class EmptyCacheTrick : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    device_ = s.device;
    model_ = wl::Mlp(kMlp, device_);
    optimizer_ = std::make_unique<torch::optim::SGD>(model_->parameters(),
                                                     torch::optim::SGDOptions(0.01).momentum(0.9));
    batch_ = wl::ClassificationBatch(kBatch, kMlp.in, kMlp.out, device_);
  }

  void KeepCache() { Step(false); }
  void EmptyEachStep() { Step(true); }

  trickbench::Tensors Result() override { return wl::Parameters(*model_); }

  std::string Inactive(const std::string& variant) override {
    if (variant == "empty_cache_each_step" && released_bytes_ <= 0) {
      return "the step ended with no cached bytes released";
    }
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"cuda_reserved_after_step_bytes", static_cast<double>(after_.reserved_bytes)},
            {"cuda_allocated_after_step_bytes", static_cast<double>(after_.allocated_bytes)},
            {"cuda_released_by_call_bytes", static_cast<double>(released_bytes_)},
            {"cuda_mallocs_per_step", static_cast<double>(mallocs_per_step_)}};
  }

  int64_t ItemsPerRun() const override { return kBatch; }

 private:
  void Step(bool empty_cache) {
    const CacheState before = ReadCache(device_);
    model_->zero_grad(/*set_to_none=*/true);
    wl::TrainStep(model_, *optimizer_, batch_);
    const CacheState stepped = ReadCache(device_);
    if (empty_cache) EmptyCache();
    after_ = ReadCache(device_);
    released_bytes_ = stepped.reserved_bytes - after_.reserved_bytes;
    mallocs_per_step_ = after_.segments_allocated - before.segments_allocated;
  }

  torch::Device device_ = torch::kCPU;
  torch::nn::Sequential model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  wl::Batch batch_;
  CacheState after_;
  int64_t released_bytes_ = 0, mallocs_per_step_ = 0;
};

// One SGD step with momentum, the same in both variants (emptyCache() moves no data):
// 3x the forward's FLOP; the weights read twice, grads written, the update reading the
// parameters, grads and momentum and writing two of them (8 x the parameters); each
// activation written once and read about five times.
trickbench::CaseWork Work(const trickbench::Instance& s) {
  const double params = static_cast<double>(wl::MlpParameters(kMlp));
  const double activations =
      static_cast<double>(kBatch) * (kMlp.in + 2 * kMlp.layers * kMlp.hidden + kMlp.out);
  return {.flop = 3 * wl::MlpForwardFlop(kMlp, kBatch),
          .bytes = 4 * (8 * params + 6 * activations),
          .working_set = 4 * (4 * params + activations)};
}

}  // namespace

TRICKBENCH_TRICK(empty_cache, EmptyCacheTrick)
    .Category("Model architecture and training")
    .Source("B")
    .Claim("frees cached blocks for other processes; the next step pays to re-allocate")
    .Expect(trickbench::claim::Fewer("cuda_reserved_after_step_bytes",
                                     "the caching allocator's reserved bytes, read after a step"))
    .Expect(trickbench::claim::Slower())
    .NeedsCuda("frees the CUDA caching allocator's cached blocks")
    .Work(Work)
    .Trains()
    .Variant("keep_cache", &EmptyCacheTrick::KeepCache)
    .Variant("empty_cache_each_step", &EmptyCacheTrick::EmptyEachStep)
    .Bitwise();
