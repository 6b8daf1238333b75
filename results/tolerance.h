// How closely a variant's result must match its baseline's: the one definition, which a
// trick's registration sets (TrickDef::Tolerance), its result file records
// (trickbench.tolerance) and the report shows.
//
//   results::Tolerance t{.rtol = 1e-4, .atol = 1e-6};   // |a - b| <= atol + rtol * |b|
//   results::Tolerance bitwise;                         // both 0: bit for bit
//   if (t.bitwise()) ...
//
// The element-wise rule itself is determinism/tensor_compare.h's (TensorTolerance), the
// floor below, which knows nothing of result files.
#pragma once

namespace trickbench {
namespace results {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool bitwise() const { return rtol == 0 && atol == 0; }
};

}  // namespace results
}  // namespace trickbench
