// Gradient (activation) checkpointing: run a segment of a model without keeping its
// activations, and recompute them in backward. LibTorch C++ has no
// torch.utils.checkpoint; this is it, as a torch::autograd::Function.
//
//   using trickbench::training::Checkpoint;
//   auto y = Checkpoint([&](const torch::Tensor& x) { return block2(block1(x)); },
//                       x, params_of_block1_and_block2);
//   loss_fn(y).backward();   // the blocks run forward again here, under grad mode
//
// Forward runs the segment with grad mode off and keeps only its input. Backward
// runs it again with grad mode on and differentiates that, so the gradients are the
// ones the plain run gives (bitwise, with deterministic kernels). For the recompute
// to be the same computation:
//   - the RNG state (CPU, and the input's CUDA device) is put back to what it was at
//     forward, so dropout draws the same mask; the caller's RNG is restored afterwards;
//   - the autocast settings of forward are restored (see training/autocast.h);
//   - grad mode is on even though backward normally runs without it.
//
// Contract: `params` must list every tensor requiring grad that the segment reads
// other than `input` (the segment's module parameters). Gradients reach exactly these
// (through the autograd graph, so torch::autograd::grad works too); a parameter left
// out silently gets no gradient. Side effects of the segment happen twice: BatchNorm
// running statistics are updated once in forward and once in the recompute, as with
// PyTorch's checkpoint. Double backward (create_graph) is not supported.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace trickbench::training {

using Segment = std::function<torch::Tensor(const torch::Tensor&)>;

struct CheckpointOptions {
  // Restore the forward's RNG state for the recompute (costs a generator state copy).
  bool preserve_rng_state = true;
};

// segment(input), with its activations recomputed in backward instead of stored.
torch::Tensor Checkpoint(const Segment& segment, const torch::Tensor& input,
                         const std::vector<torch::Tensor>& params,
                         const CheckpointOptions& options = {});

// One layer of a sequential model: what it computes and the parameters it reads.
struct Layer {
  Segment forward;
  std::vector<torch::Tensor> params;
};

// Runs `layers` in order, split into `segments` contiguous segments of (nearly)
// equal length; every segment but the last is checkpointed, so only the segment
// boundaries and one segment's activations are live at once: with segments ~ sqrt(n)
// the activation memory is O(sqrt(n)) instead of O(n) (Chen et al. 2016). The last
// segment runs plainly, as in torch.utils.checkpoint.checkpoint_sequential: its
// backward comes first, so recomputing it would save nothing.
// Throws std::invalid_argument unless 1 <= segments <= layers.size().
torch::Tensor CheckpointSequential(const std::vector<Layer>& layers, int64_t segments,
                                   const torch::Tensor& input,
                                   const CheckpointOptions& options = {});

}  // namespace trickbench::training
