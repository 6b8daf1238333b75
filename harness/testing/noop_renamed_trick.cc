// Test-only: the trick `noop` as a later build might register it, with a variant renamed.
// run_all's tests put it beside noop as the other build of an A/B session, where it must
// refuse noop's iteration counts (its variants differ) and calibrate its own.
#include "harness/trick.h"

namespace {

class NoopRenamed : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance&) override { value_ = torch::randn({4}); }
  void Nothing() {}
  trickbench::Tensors Result() override { return {value_}; }

 private:
  torch::Tensor value_;
};

}  // namespace

TRICKBENCH_TRICK(noop, NoopRenamed)
    .Category("test")
    .Source("test")
    .Claim("the harness adds at most 100 ns per iteration")
    .Variant("baseline", &NoopRenamed::Nothing)
    .Variant("renamed", &NoopRenamed::Nothing);
