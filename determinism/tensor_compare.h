// CompareTensors: the one comparison of two sets of tensors, used wherever trickbench
// asks "is this the same answer?": a variant's result against the baseline's (the
// runner's equivalence check), a run with 1 thread against a run with 2
// (thread_count.h), one training step against the same step of another run (trace.h).
//
//   const auto c = trickbench::CompareTensors({{"logits", base}}, {{"logits", fast}},
//                                             {.rtol = 1e-5, .atol = 1e-6});
//   if (!c.equal) std::cerr << c.Describe("baseline") << "\n";
//   // "logits: max |diff| 0.0031, max rel diff 0.0009: 17 of 4096 elements outside
//   //  the tolerance, first at [0, 12] (rtol 1e-05, atol 1e-06)"
//
// Two modes, chosen by the tolerance:
// - bitwise (rtol = atol = 0, the default): same dtype, and every element's bytes
//   equal; -0.0 and 0.0 differ, because a fingerprint (fingerprint.h) tells them apart.
// - within rtol/atol: |got - expected| <= atol + rtol * |expected| elementwise (the
//   rule of torch.allclose), values compared as float64, so a bf16 result may be
//   checked against a float baseline.
// In both modes NaN equals NaN in the same place (whatever its payload): a result that
// is NaN where the baseline is NaN is the same answer; NaN against a number is not.
// Infinities equal themselves. Tensors on another device are copied to the CPU.
//
// Whatever the mode, a count, name, defined/undefined, device or shape mismatch makes
// two sets unequal; a dtype mismatch does in bitwise mode (within a tolerance, values
// are compared across dtypes). The comparison goes
// through every tensor, so the figures (max |diff|, max relative diff, differing
// elements) cover all of them, and each tensor that is not bitwise equal is listed.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "determinism/fingerprint.h"  // NamedTensors

namespace trickbench {

struct TensorTolerance {
  double rtol = 0;
  double atol = 0;
  bool bitwise() const { return rtol == 0 && atol == 0; }
};

// One tensor (or, for "count", the two sets) that is not bitwise equal.
struct TensorDifference {
  std::string name;
  // "values" (same structure, different elements), "dtype" (values compared across
  // dtypes too), or a structural mismatch: "count", "name", "defined", "device", "shape".
  std::string what;
  bool within_tolerance = false;  // the check passes: values within rtol/atol, not bitwise
  std::string expected, got;      // the two sides of a mismatch other than "values", as text
  // For "values" and "dtype":
  int64_t elements = 0;
  int64_t differing_elements = 0;  // not bitwise equal
  int64_t outside_tolerance = 0;   // failing the check (= differing_elements when bitwise)
  // The first element failing the check or, when all pass, the first differing one
  // (row-major order).
  std::vector<int64_t> first_index;
  double max_abs_diff = 0;  // over the differing elements; NaN against a number is inf
  double max_rel_diff = 0;  // |diff| / |expected|

  // "logits: max |diff| ..., first at [0, 12]"; `expected_label` names the reference
  // side ("baseline", "run a").
  std::string Describe(const std::string& expected_label = "expected") const;
};

struct TensorComparison {
  TensorTolerance tolerance;
  bool equal = true;          // every tensor passes the check (bitwise when zero tolerance)
  bool bitwise_equal = true;  // every tensor bit for bit (NaN = NaN)
  double max_abs_diff = 0;    // over every tensor compared by values
  double max_rel_diff = 0;
  std::vector<TensorDifference> differences;  // every tensor not bitwise equal, in order

  // The first tensor failing the check (nullptr when equal) and the first not bitwise
  // equal (nullptr when bitwise_equal).
  const TensorDifference* FirstMismatch() const;
  const TensorDifference* FirstDifference() const;

  // One line: why not equal, or "bitwise equal", or "equal within the tolerance (...)".
  std::string Describe(const std::string& expected_label = "expected") const;
};

// `expected` is the reference: relative differences are relative to it.
TensorComparison CompareTensors(const NamedTensors& expected, const NamedTensors& got,
                                const TensorTolerance& tolerance = {});

// Unnamed tensors are named "<prefix>[i]".
TensorComparison CompareTensors(const std::vector<torch::Tensor>& expected,
                                const std::vector<torch::Tensor>& got,
                                const TensorTolerance& tolerance = {},
                                const std::string& prefix = "result");

}  // namespace trickbench
