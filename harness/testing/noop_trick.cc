// Test-only trick whose variant bodies do nothing: what the harness itself costs per
// iteration (the loop, the call through std::function). Not part of benches/.
#include "harness/trick.h"

namespace {

class Noop : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance&) override { value_ = torch::randn({4}); }
  void Nothing() {}
  trickbench::Tensors Result() override { return {value_}; }

 private:
  torch::Tensor value_;
};

}  // namespace

TRICKBENCH_TRICK(noop, Noop)
    .Category("test")
    .Source("test")
    .Claim("the harness adds at most 100 ns per iteration")
    .Variant("baseline", &Noop::Nothing)
    .Variant("optimized", &Noop::Nothing);
