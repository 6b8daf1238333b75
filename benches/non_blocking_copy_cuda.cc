// CUDA half of non_blocking_copy.cc: copies on a side stream overlapped with compute.
// Compiled only with --config=cuda (c10/cuda headers).
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/types.h>

#include <functional>
#include <vector>

namespace trickbench::non_blocking_copy_cuda {

torch::Tensor OverlappedCopyCompute(
    const std::vector<torch::Tensor>& pinned_chunks, const torch::Device& device,
    const std::function<torch::Tensor(const torch::Tensor&)>& compute) {
  const c10::DeviceIndex index = device.index() < 0 ? 0 : device.index();
  c10::cuda::CUDAStream compute_stream = c10::cuda::getCurrentCUDAStream(index);
  c10::cuda::CUDAStream copy_stream = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, index);
  const size_t n = pinned_chunks.size();
  std::vector<torch::Tensor> on_device(n);
  std::vector<at::cuda::CUDAEvent> copied(n);  // default: timing disabled, cheapest

  auto issue_copy = [&](size_t i) {
    c10::cuda::CUDAStreamGuard on_copy_stream(copy_stream);
    on_device[i] = pinned_chunks[i].to(device, /*non_blocking=*/true);  // returns at once
    copied[i].record(copy_stream);
  };

  torch::Tensor acc;
  if (n == 0) return acc;
  issue_copy(0);
  for (size_t i = 0; i < n; ++i) {
    if (i + 1 < n) issue_copy(i + 1);  // runs on the copy engine while chunk i computes
    copied[i].block(compute_stream);   // compute waits for its own chunk, nothing else
    // Allocated on the copy stream, read on the compute stream: keep the caching
    // allocator from reusing it before the compute stream is done.
    on_device[i].record_stream(compute_stream);
    torch::Tensor partial = compute(on_device[i]);
    acc = acc.defined() ? acc.add_(partial) : partial;
    on_device[i].reset();
  }
  return acc;
}

}  // namespace trickbench::non_blocking_copy_cuda
