// Test-only trick that dies of SIGSEGV-like abort in its optimized variant, to show
// that run_all records a crash and goes on.
#include <cstdlib>

#include "harness/trick.h"

namespace {

class Crash : public trickbench::Trick {
 public:
  void Fine() {}
  void Die() { std::abort(); }
  trickbench::Tensors Result() override { return {torch::ones({1})}; }
};

}  // namespace

TRICKBENCH_TRICK(crash, Crash)
    .Category("test")
    .Source("test")
    .Claim("crashes")
    .Variant("baseline", &Crash::Fine)
    .Variant("optimized", &Crash::Die);
