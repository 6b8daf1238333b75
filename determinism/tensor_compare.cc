#include "determinism/tensor_compare.h"

#include <cmath>
#include <sstream>

namespace trickbench {
namespace {

// The tensor's bytes as integers of the same width, so that == compares bits: float
// == would call -0.0 and 0.0 equal, and a NaN unequal to itself.
torch::Tensor Bits(const torch::Tensor& t) {
  if (!t.is_floating_point()) return t;
  switch (t.element_size()) {
    case 1:
      return t.view(torch::kByte);
    case 2:
      return t.view(torch::kShort);
    case 4:
      return t.view(torch::kInt);
    default:
      return t.view(torch::kLong);
  }
}

// Elementwise "the bytes differ", for two tensors of one dtype.
torch::Tensor BitsDiffer(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.is_complex()) {  // compare (real, imag) pairs
    return Bits(torch::view_as_real(a)).ne(Bits(torch::view_as_real(b))).any(-1);
  }
  return Bits(a).ne(Bits(b));
}

// Float64 (complex128 for complex) values, for differences that do not overflow or
// round in the tensor's own dtype.
torch::Tensor Wide(const torch::Tensor& t) {
  return t.to(t.is_complex() ? torch::kComplexDouble : torch::kDouble);
}

// Elementwise "NaN on both sides" (complex: either part NaN counts as NaN).
torch::Tensor BothNan(const torch::Tensor& a, const torch::Tensor& b) {
  return a.isnan().logical_and(b.isnan());
}

std::vector<int64_t> Unravel(int64_t flat, c10::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  return index;
}

// Index of the first true element of a boolean tensor, or {} when none.
std::vector<int64_t> FirstTrue(const torch::Tensor& mask) {
  const torch::Tensor flat = mask.flatten().nonzero();
  if (flat.size(0) == 0) return {};
  return Unravel(flat[0][0].item<int64_t>(), mask.sizes());
}

double MaxOrZero(const torch::Tensor& t) {
  return t.numel() == 0 ? 0.0 : t.nan_to_num(INFINITY, INFINITY).max().item<double>();
}

std::string Number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string ToleranceNote(const TensorTolerance& tol) {
  return tol.bitwise() ? "bitwise equality required"
                       : "rtol " + Number(tol.rtol) + ", atol " + Number(tol.atol);
}

TensorDifference Structural(std::string name, std::string what, std::string expected,
                            std::string got) {
  TensorDifference d;
  d.name = std::move(name);
  d.what = std::move(what);
  d.expected = std::move(expected);
  d.got = std::move(got);
  return d;
}

// Compares two defined tensors of the same shape and device; returns whether they are
// bitwise equal, and fills `d` when not.
bool CompareValues(const torch::Tensor& expected_in, const torch::Tensor& got_in,
                   const TensorTolerance& tol, TensorDifference* d) {
  const torch::Tensor expected = expected_in.detach().cpu().contiguous();
  const torch::Tensor got = got_in.detach().cpu().contiguous();
  const bool same_dtype = expected.scalar_type() == got.scalar_type();
  const torch::Tensor e = Wide(expected), g = Wide(got);
  const torch::Tensor both_nan = BothNan(e, g);
  // Not bitwise equal: different bytes, unless both are NaN. Across dtypes bytes mean
  // nothing: elements differ when their values do, and the tensors differ anyway.
  const torch::Tensor differing =
      (same_dtype ? BitsDiffer(got, expected) : e.ne(g)).logical_and(both_nan.logical_not());
  d->elements = expected.numel();
  d->differing_elements = differing.sum().item<int64_t>();
  if (same_dtype && d->differing_elements == 0) return true;
  const torch::Tensor diff = (g - e).abs();  // NaN where exactly one side is NaN
  torch::Tensor outside;
  if (tol.bitwise()) {
    outside = differing;
  } else {
    const torch::Tensor same_value = e.eq(g).logical_or(both_nan);  // inf == inf
    // An infinity is only close to itself (the tolerance around it is infinite).
    const torch::Tensor close =
        diff.le(tol.atol + tol.rtol * e.abs()).logical_and(e.isfinite()).logical_and(g.isfinite());
    outside = same_value.logical_or(close).logical_not();
  }
  d->what = same_dtype ? "values" : "dtype";
  if (!same_dtype) {
    d->expected = c10::toString(expected.scalar_type());
    d->got = c10::toString(got.scalar_type());
  }
  d->outside_tolerance = outside.sum().item<int64_t>();
  // Bitwise mode takes no dtype change, even with equal values.
  d->within_tolerance = d->outside_tolerance == 0 && (same_dtype || !tol.bitwise());
  d->first_index = FirstTrue(d->within_tolerance ? differing : outside);
  d->max_abs_diff = MaxOrZero(diff.masked_select(differing));
  d->max_rel_diff = MaxOrZero((diff / e.abs().clamp_min(1e-30)).masked_select(differing));
  return false;
}

}  // namespace

std::string TensorDifference::Describe(const std::string& expected_label) const {
  if (what == "count") return "got " + got + " tensors, " + expected_label + " " + expected;
  std::ostringstream os;
  os << name << ": ";
  if (what != "values") {
    os << (what == "defined" ? "" : what + " ") << got << " vs " << expected_label << " "
       << expected;
    if (what != "dtype" || differing_elements == 0) return os.str();
    os << "; ";
  }
  os << "max |diff| " << max_abs_diff << ", max rel diff " << max_rel_diff << ": ";
  if (within_tolerance) {
    os << differing_elements << " of " << elements << " elements differ, all within the tolerance";
  } else if (outside_tolerance == differing_elements) {
    os << differing_elements << " of " << elements << " elements differ";
  } else {
    os << outside_tolerance << " of " << elements << " elements outside the tolerance ("
       << differing_elements << " differ)";
  }
  os << ", first at " << c10::IntArrayRef(first_index);
  return os.str();
}

const TensorDifference* TensorComparison::FirstMismatch() const {
  for (const auto& d : differences) {
    if (!d.within_tolerance) return &d;
  }
  return nullptr;
}

const TensorDifference* TensorComparison::FirstDifference() const {
  return differences.empty() ? nullptr : &differences.front();
}

std::string TensorComparison::Describe(const std::string& expected_label) const {
  if (bitwise_equal) return "bitwise equal";
  if (equal) {
    return "equal within the tolerance (" + ToleranceNote(tolerance) + "); first difference " +
           FirstDifference()->Describe(expected_label);
  }
  return FirstMismatch()->Describe(expected_label) + " (" + ToleranceNote(tolerance) + ")";
}

TensorComparison CompareTensors(const NamedTensors& expected, const NamedTensors& got,
                                const TensorTolerance& tolerance) {
  TensorComparison c;
  c.tolerance = tolerance;
  auto add = [&c](TensorDifference d) {
    c.bitwise_equal = false;
    c.equal = c.equal && d.within_tolerance;
    c.differences.push_back(std::move(d));
  };
  if (expected.size() != got.size()) {
    add(Structural("", "count", std::to_string(expected.size()), std::to_string(got.size())));
    return c;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& [name, e] = expected[i];
    const torch::Tensor& g = got[i].second;
    if (got[i].first != name) {
      add(Structural(name, "name", name, got[i].first));
    } else if (e.defined() != g.defined()) {
      add(Structural(name, "defined", e.defined() ? "defined" : "undefined",
                     g.defined() ? "defined" : "undefined"));
    } else if (!e.defined()) {
      continue;  // both undefined (e.g. a grad set to none on both sides)
    } else if (e.device() != g.device()) {
      add(Structural(name, "device", e.device().str(), g.device().str()));
    } else if (e.sizes() != g.sizes()) {
      add(Structural(name, "shape", c10::str(e.sizes()), c10::str(g.sizes())));
    } else {
      TensorDifference d;
      d.name = name;
      if (CompareValues(e, g, tolerance, &d)) continue;
      c.max_abs_diff = std::max(c.max_abs_diff, d.max_abs_diff);
      c.max_rel_diff = std::max(c.max_rel_diff, d.max_rel_diff);
      add(std::move(d));
    }
  }
  return c;
}

TensorComparison CompareTensors(const std::vector<torch::Tensor>& expected,
                                const std::vector<torch::Tensor>& got,
                                const TensorTolerance& tolerance, const std::string& prefix) {
  auto named = [&prefix](const std::vector<torch::Tensor>& tensors) {
    NamedTensors out;
    for (size_t i = 0; i < tensors.size(); ++i) {
      out.emplace_back(prefix + "[" + std::to_string(i) + "]", tensors[i]);
    }
    return out;
  };
  return CompareTensors(named(expected), named(got), tolerance);
}

}  // namespace trickbench
