// Test-only trick whose optimized variant agrees with the baseline but says the trick
// was not in effect: the result must be "invalid" with that reason.
#include "harness/trick.h"

namespace {

class NotInEffect : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance&) override { x_ = torch::randn({8}); }
  void Run() { y_ = x_ + 1; }
  trickbench::Tensors Result() override { return {y_}; }
  std::string Inactive(const std::string& variant) override {
    return variant == "optimized" ? "the optimization was silently ignored" : "";
  }

 private:
  torch::Tensor x_, y_;
};

}  // namespace

TRICKBENCH_TRICK(inactive, NotInEffect)
    .Category("test")
    .Source("test")
    .Claim("is not in effect")
    .Variant("baseline", &NotInEffect::Run)
    .Variant("optimized", &NotInEffect::Run);
