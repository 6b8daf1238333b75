// Test-only trick whose optimized variant computes something else (and another
// whose optimized variant is not in effect): both must come out "invalid", untimed.
#include "harness/trick.h"

namespace {

class WrongAnswer : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance&) override { x_ = torch::randn({64}); }
  void Right() { y_ = x_ * 2; }
  void Wrong() { y_ = x_ * 2 + 1e-3; }
  trickbench::Tensors Result() override { return {y_}; }

 private:
  torch::Tensor x_, y_;
};

}  // namespace

TRICKBENCH_TRICK(wrong_answer, WrongAnswer)
    .Category("test")
    .Source("test")
    .Claim("gives a different answer")
    .Variant("baseline", &WrongAnswer::Right)
    .Variant("optimized", &WrongAnswer::Wrong)
    .Tolerance(1e-5, 1e-6);
