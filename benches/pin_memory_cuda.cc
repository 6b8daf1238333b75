// CUDA half of pin_memory.cc: the copy timed with CUDA events on the current stream.
// Compiled only with --config=cuda (c10/cuda headers).
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/types.h>

namespace trickbench::pin_memory_cuda {

double TimedCopyMs(torch::Tensor& dst, const torch::Tensor& src) {
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(dst.device().index());
  at::cuda::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);  // timing enabled
  start.record(stream);
  dst.copy_(src);  // blocking: from pageable memory the driver stages it; pinned: direct DMA
  stop.record(stream);
  stop.synchronize();
  return static_cast<double>(start.elapsed_time(stop));
}

}  // namespace trickbench::pin_memory_cuda
