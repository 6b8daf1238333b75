// pinned_loader_workers (A2, A3, B): loader workers that collate batches straight into
// pinned host memory, against the same workers collating into pageable memory.
//
// A3: "pin_memory=True ... can be combined with num_workers = 4 x num_GPU" (A2); the GPU
// cannot read pageable memory, so a copy from it is staged by the driver through its
// own pinned buffer, chunk by chunk, on the calling thread. With pinned batches the
// copy is one DMA the caller only enqueues (non_blocking), while the workers (not the
// training thread) pay for the pinned allocation. pin_memory measures one copy; this
// file the loader: one epoch of 512 uint8 images 3 x 224 x 224 (77 MB, ImageNet's
// input as a loader delivers it before normalising on the GPU) in 8 batches of 64,
// collated by 4 worker threads (A2's 4 x num_GPU on one GPU), each batch copied to the
// device in order and reduced there (a per-sample sum, standing in for the step).
// Variants: workers_pageable (batches in ordinary memory, a blocking copy),
// workers_pinned (batches allocated pinned by the workers, a non_blocking copy; LibTorch's
// caching host allocator keeps each buffer until its copy has run, as PyTorch's pin-memory
// thread relies on). The worker's collate is a plain copy from an in-memory image set:
// decoding is loader_workers' subject.
//
// Claimed: faster (graded on the epoch's time; no figure). CUDA only: pinned memory and
// the copy need it (skipped with that reason elsewhere). Equivalence: the per-sample
// sums, bitwise (the same bytes reach the same kernel).
#include <torch/cuda.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "harness/trick.h"

namespace {

constexpr int64_t kSamples = 512, kBatch = 64, kBatches = kSamples / kBatch, kWorkers = 4;
constexpr int64_t kSide = 224;

class PinnedLoaderWorkers : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance& s) override {
    images_ = torch::randint(0, 256, {kSamples, 3, kSide, kSide}, torch::kUInt8);
    on_device_ =
        torch::empty({kBatch, 3, kSide, kSide}, torch::dtype(torch::kUInt8).device(s.device));
  }

  void Pageable() { Epoch(/*pin=*/false); }
  void Pinned() { Epoch(/*pin=*/true); }

  trickbench::Tensors Result() override { return {sums_.cpu()}; }

  std::string Inactive(const std::string& variant) override {
    const int64_t want_pinned = variant == "workers_pinned" ? kBatches : 0;
    if (pinned_batches_ != want_pinned) {
      return std::to_string(pinned_batches_) + " of " + std::to_string(kBatches) +
             " batches were pinned, expected " + std::to_string(want_pinned);
    }
    if (producers_.count(std::this_thread::get_id()) > 0 || producers_.empty())
      return "the batches were not collated by worker threads alone";
    if (!on_device_.is_cuda()) return "the batches were not copied to a CUDA device";
    return "";
  }

  std::map<std::string, double> Counters(const std::string& variant) override {
    return {{"worker_threads_used", static_cast<double>(producers_.size())},
            {"bytes_per_epoch", static_cast<double>(images_.numel())}};
  }

  int64_t ItemsPerRun() const override { return kSamples; }

 private:
  // Worker w collates batches w, w + kWorkers, ...; the caller copies them in order.
  void Epoch(bool pin) {
    std::vector<torch::Tensor> ready(kBatches);
    std::mutex mu;
    std::condition_variable cv;
    std::exception_ptr error;
    std::set<std::thread::id> producers;
    std::vector<std::thread> workers;
    for (int64_t w = 0; w < kWorkers; ++w) {
      workers.emplace_back([&, w] {
        try {
          for (int64_t b = w; b < kBatches; b += kWorkers) {
            torch::Tensor batch = torch::empty({kBatch, 3, kSide, kSide},
                                               torch::dtype(torch::kUInt8).pinned_memory(pin));
            batch.copy_(images_.narrow(0, b * kBatch, kBatch));
            std::lock_guard<std::mutex> lock(mu);
            ready[b] = std::move(batch);
            producers.insert(std::this_thread::get_id());
            cv.notify_all();
          }
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu);
          error = std::current_exception();
          cv.notify_all();
        }
      });
    }
    std::vector<torch::Tensor> sums;
    int64_t pinned = 0;
    for (int64_t b = 0; b < kBatches; ++b) {
      torch::Tensor batch;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return ready[b].defined() || error; });
        if (error) break;
        batch = std::move(ready[b]);
      }
      pinned += batch.is_pinned();
      on_device_.copy_(batch, /*non_blocking=*/pin);
      sums.push_back(on_device_.sum({1, 2, 3}));
    }
    for (auto& t : workers) t.join();
    if (error) std::rethrow_exception(error);
    if (on_device_.is_cuda()) torch::cuda::synchronize();
    sums_ = torch::cat(sums);
    pinned_batches_ = pinned;
    producers_ = std::move(producers);
  }

  torch::Tensor images_, on_device_, sums_;
  int64_t pinned_batches_ = 0;
  std::set<std::thread::id> producers_;
};

// One epoch, either variant: every image copied host to device (77 MB: 1.2 ms at
// 64 GB/s), written into the batch buffer and read by the per-sample sum.
trickbench::CaseWork Work(const trickbench::Instance&) {
  const double epoch = static_cast<double>(kSamples) * 3 * kSide * kSide;  // uint8
  return {.bytes = 2 * epoch, .host_bytes = epoch, .working_set = epoch / kBatches};
}

}  // namespace

TRICKBENCH_TRICK(pinned_loader_workers, PinnedLoaderWorkers)
    .Category("Data loading")
    .Source("A2, A3, B")
    .Claim(
        "pin_memory=True with num_workers=4 x num_GPU: pinned batches skip the staging copy "
        "(no figure)")
    .Expect(trickbench::claim::Faster())
    .NeedsCuda("pinned host memory and the host-to-device copy need CUDA")
    .Work(Work)
    .Variant("workers_pageable", &PinnedLoaderWorkers::Pageable)
    .Variant("workers_pinned", &PinnedLoaderWorkers::Pinned)
    .Bitwise();
