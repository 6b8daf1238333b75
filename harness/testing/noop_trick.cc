// Test-only trick whose variant bodies do nothing: what the harness itself costs per
// iteration (the loop, the call through std::function). Not part of benches/.
//
// Built twice (BUILD): as `noop`, and as `noop_renamed` with NOOP_RENAMED defined, the
// same trick as a later build might register it, its second variant "renamed".
// run_all's tests run that as the other build of an A/B session, where it must refuse
// noop's iteration counts (its variants differ) and calibrate its own.
#include "harness/trick.h"

#ifdef NOOP_RENAMED
#define NOOP_SECOND_VARIANT "renamed"
#else
#define NOOP_SECOND_VARIANT "optimized"
#endif

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
    .Variant(NOOP_SECOND_VARIANT, &Noop::Nothing);
