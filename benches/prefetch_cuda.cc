// CUDA half of prefetch.cc: how both variants move a batch to the GPU, pinned and on a
// side stream, so that serial and background differ only in where and when it runs.
// Compiled only with --config=cuda (c10/cuda headers).
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/types.h>
#include <torch/data.h>

#include <functional>
#include <memory>

namespace trickbench::prefetch_cuda {

struct StagedBatch {
  torch::data::Example<> batch;
  std::function<void()> wait;
};

StagedBatch CopyOnSideStream(const torch::data::Example<>& batch, const torch::Device& device) {
  const c10::DeviceIndex index = device.index() < 0 ? 0 : device.index();
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, index);
  StagedBatch out;
  {
    c10::cuda::CUDAStreamGuard on_side(side);
    // Pinned source: the copy is truly asynchronous, and the pinned allocator records
    // the stream use, so the host buffers live until the copy is done.
    out.batch.data = batch.data.pin_memory().to(device, /*non_blocking=*/true);
    out.batch.target = batch.target.pin_memory().to(device, /*non_blocking=*/true);
  }
  auto copied = std::make_shared<at::cuda::CUDAEvent>();
  copied->record(side);
  torch::Tensor data = out.batch.data, target = out.batch.target;
  out.wait = [copied, data, target, index]() mutable {
    c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(index);
    copied->block(current);
    // Allocated on the side stream, used on this one: the caching allocator must not
    // reuse the memory before this stream is done with it.
    data.record_stream(current);
    target.record_stream(current);
  };
  return out;
}

}  // namespace trickbench::prefetch_cuda
