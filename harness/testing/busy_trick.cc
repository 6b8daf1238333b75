// Test-only trick whose variants do the same fixed CPU work (~20 us): a planted
// slowdown (--plant_slowdown) on one of them must show as that factor in the rounds,
// and without one the paired ratio must be about 1. Not part of benches/.
#include "harness/trick.h"

namespace {

class Busy : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance&) override { value_ = torch::zeros({1}); }
  void Work() {
    // volatile: the loop is the workload, the compiler must not fold it.
    volatile double acc = 0;
    for (int i = 0; i < 20000; ++i) acc = acc + i * 1e-9;
  }
  trickbench::Tensors Result() override { return {value_}; }

 private:
  torch::Tensor value_;
};

}  // namespace

TRICKBENCH_TRICK(busy, Busy)
    .Category("test")
    .Source("test")
    .Claim("two variants that do the same work run at the same speed")
    .Variant("baseline", &Busy::Work)
    .Variant("optimized", &Busy::Work);
