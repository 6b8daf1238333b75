// Forward declarations of the LibTorch classes trickbench's headers take by reference
// only, so that such a header stays at torch/types.h. torch/nn/module.h or
// torch/optim/optimizer.h would add a few seconds to every file that includes the header
// (most of the harness includes determinism/fingerprint.h); the .cc that uses the class
// includes its real header.
//
//   #include "third_party/libtorch/forward.h"
//
//   Fingerprint FingerprintModule(const torch::nn::Module& module, bool include_grads);
#pragma once

namespace torch {
namespace nn {
class Module;
}  // namespace nn
namespace optim {
class Optimizer;
}  // namespace optim
}  // namespace torch
