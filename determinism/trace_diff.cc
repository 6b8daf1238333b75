#include "determinism/trace_diff.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "results/checked_json.h"

namespace trickbench {
namespace {

// Whether two records of one tensor may come from values within the elementwise tolerance
// |a_i - b_i| <= atol + rtol * |b_i| (tensor_compare.h's rule). Files keep the sum and the
// L2 norm, and over n elements that tolerance lets them differ by at most
//   |sum a - sum b|   <= n * atol + rtol * sum |b_i|  <= n * atol + rtol * sqrt(n) * |b|_2
//   ||a|_2 - |b|_2|   <= |a - b|_2                   <= sqrt(n) * atol + rtol * |b|_2.
// Bounding the sum by rtol * |sum b| instead would call a gradient whose entries cancel
// (a softmax layer's: its sum is ~0) beyond any tolerance for a last-bit difference.
bool Within(const TensorRecord& a, const TensorRecord& b, const TraceDiffOptions& o) {
  double n = 1;
  for (const int64_t d : b.digest.shape) n *= static_cast<double>(d);
  const double root_n = std::sqrt(n);
  const bool sum_ok = SameValue(a.sum, b.sum) ||
                      std::fabs(a.sum - b.sum) <= n * o.atol + o.rtol * root_n * std::fabs(b.norm);
  const bool norm_ok = SameValue(a.norm, b.norm) ||
                       std::fabs(a.norm - b.norm) <= root_n * o.atol + o.rtol * std::fabs(b.norm);
  return sum_ok && norm_ok;
}

// The parameters' names and shapes at `step`, in recording order.
std::vector<std::pair<std::string, std::vector<int64_t>>> Parameters(const StepRecord& step) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const auto& t : step.tensors) {
    if (t.digest.name.rfind("param:", 0) == 0) out.emplace_back(t.digest.name, t.digest.shape);
  }
  return out;
}

// The file with only the steps from `from` on (TraceDiffOptions::from_step).
TraceFile FromStep(const TraceFile& f, int64_t from) {
  TraceFile out = f;
  out.trace = TrainingTrace(f.trace.keep_values());
  for (const StepRecord& s : f.trace.steps()) {
    if (s.step >= from) out.trace.Append(s);
  }
  return out;
}

// Refuses two traces of different trainings (bad input, not a divergence).
void CheckSameTraining(const TraceFile& a, const TraceFile& b, const std::string& file_a,
                       const std::string& file_b, int64_t from) {
  const std::string none =
      from == std::numeric_limits<int64_t>::min()
          ? std::string("no step recorded")
          : "no step recorded from step " + std::to_string(from) + " on (--from_step)";
  if (a.trace.steps().empty()) throw results::InputError(file_a, "steps", none);
  if (b.trace.steps().empty()) throw results::InputError(file_b, "steps", none);
  std::map<int64_t, size_t> index_b;
  for (size_t i = 0; i < b.trace.steps().size(); ++i) index_b[b.trace.steps()[i].step] = i;
  for (const StepRecord& sa : a.trace.steps()) {
    const auto it = index_b.find(sa.step);
    if (it == index_b.end()) continue;
    const auto pa = Parameters(sa), pb = Parameters(b.trace.steps()[it->second]);
    const std::string field = "steps[" + std::to_string(it->second) + "].tensors";
    const std::string not_same = "not a trace of the same training as " + file_a + ": ";
    for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
      if (i >= pb.size()) throw results::InputError(file_b, field, not_same + "no " + pa[i].first);
      if (i >= pa.size()) {
        throw results::InputError(file_b, field, not_same + pb[i].first + " is not in " + file_a);
      }
      if (pa[i].first != pb[i].first) {
        throw results::InputError(file_b, field,
                                  not_same + pb[i].first + " where it has " + pa[i].first);
      }
      if (pa[i].second != pb[i].second) {
        throw results::InputError(file_b, field,
                                  not_same + pb[i].first + " has shape " +
                                      c10::str(c10::IntArrayRef(pb[i].second)) + ", " +
                                      c10::str(c10::IntArrayRef(pa[i].second)) + " there");
      }
    }
    return;  // the first step both recorded decides
  }
}

// The divergence FindDivergence reports for one step alone (same words as trace.h).
Divergence StepDivergence(const StepRecord* sa, const StepRecord* sb) {
  TrainingTrace ta, tb;
  if (sa) ta.Append(*sa);
  if (sb) tb.Append(*sb);
  return *FindDivergence(ta, tb);
}

bool SameStructure(const StepRecord& sa, const StepRecord& sb) {
  if (sa.tensors.size() != sb.tensors.size()) return false;
  for (size_t i = 0; i < sa.tensors.size(); ++i) {
    const auto &x = sa.tensors[i].digest, &y = sb.tensors[i].digest;
    if (x.name != y.name || x.dtype != y.dtype || x.shape != y.shape) return false;
  }
  return true;
}

}  // namespace

int TraceDiff::ExitCode() const {
  if (Bitwise()) return 0;
  return tolerance_asked && !beyond_tolerance ? 0 : 1;
}

TraceDiff DiffTraces(const TraceFile& whole_a, const TraceFile& whole_b,
                     const TraceDiffOptions& options, const std::string& file_a,
                     const std::string& file_b) {
  const TraceFile a = FromStep(whole_a, options.from_step);
  const TraceFile b = FromStep(whole_b, options.from_step);
  CheckSameTraining(a, b, file_a, file_b, options.from_step);
  TraceDiff d;
  d.tolerance_asked = options.rtol > 0 || options.atol > 0;
  d.from_step = options.from_step;
  d.first = FindDivergence(a.trace, b.trace);

  std::set<std::string> keys;
  for (const auto& [k, v] : a.environment) keys.insert(k);
  for (const auto& [k, v] : b.environment) keys.insert(k);
  for (const auto& k : keys) {
    const auto ia = a.environment.find(k), ib = b.environment.find(k);
    const std::string va = ia == a.environment.end() ? "(none)" : ia->second;
    const std::string vb = ib == b.environment.end() ? "(none)" : ib->second;
    if (va != vb) d.environment_differences.push_back(k + ": " + va + " | " + vb);
  }
  std::map<std::string, std::string> audit_b;
  for (const auto& p : b.audit) audit_b[p.name] = p.state;
  for (const auto& p : a.audit) {
    const auto it = audit_b.find(p.name);
    if (it != audit_b.end() && it->second != p.state) {
      d.environment_differences.push_back("audit " + p.name + ": " + p.state + " | " + it->second);
    }
  }
  for (const auto& [file, name] : {std::pair{&a, &file_a}, std::pair{&b, &file_b}}) {
    if (!file->determinism_cost) continue;
    const CostSamples& c = *file->determinism_cost;
    d.determinism_costs.push_back("determinism cost of " + *name + "'s step: " +
                                  (c.error.empty()
                                       ? EstimateDeterminismCost({c.log_ratios}).Describe()
                                       : "it cannot run in deterministic mode: " + c.error));
  }
  if (a.ops_step >= 0 && a.ops_step == b.ops_step) {
    d.ops_step = a.ops_step;
    d.first_op = FirstOpDivergence(a.ops, b.ops);
  }
  if (!d.first) return d;

  std::map<int64_t, const StepRecord*> sa, sb;
  for (const auto& s : a.trace.steps()) sa[s.step] = &s;
  for (const auto& s : b.trace.steps()) sb[s.step] = &s;
  std::set<int64_t> steps;
  for (const auto& [k, v] : sa) steps.insert(k);
  for (const auto& [k, v] : sb) steps.insert(k);
  const auto beyond = [&](Divergence div) {
    if (!d.beyond_tolerance) d.beyond_tolerance = std::move(div);
  };
  for (const int64_t step : steps) {
    const StepRecord* x = sa.count(step) ? sa[step] : nullptr;
    const StepRecord* y = sb.count(step) ? sb[step] : nullptr;
    if (!x || !y || !SameStructure(*x, *y)) {
      ++d.differing_tensors;
      beyond(StepDivergence(x, y));
      continue;
    }
    for (size_t i = 0; i < x->tensors.size(); ++i) {
      const TensorRecord &ta = x->tensors[i], &tb = y->tensors[i];
      if (SameRecord(ta, tb)) continue;
      ++d.differing_tensors;
      if (d.tolerance_asked && Within(ta, tb, options)) {
        ++d.within_tolerance;
        continue;
      }
      Divergence div;
      div.step = step;
      div.tensor = ta.digest.name;
      div.what = "values";
      div.sum_diff = ta.sum - tb.sum;
      div.norm_diff = ta.norm - tb.norm;
      beyond(div);
    }
  }
  return d;
}

std::string TraceDiff::Describe(const std::string& name_a, const std::string& name_b) const {
  std::ostringstream os;
  if (from_step != std::numeric_limits<int64_t>::min()) {
    os << "compared from step " << from_step << " on\n";
  }
  if (Bitwise()) {
    os << "bitwise equal: every recorded step's fingerprint matches\n";
  } else {
    // Trace files keep hashes and summaries, not values (Divergence::Describe's advice to
    // keep values is for in-process traces), so the summaries' differences are the figure.
    os << "runs diverged at step " << first->step << ", tensor " << first->tensor << " ("
       << first->what << ")";
    if (first->what == "values") {
      os << ": sum differs by " << first->sum_diff << ", L2 norm by " << first->norm_diff;
    }
    os << "\n";
    if (tolerance_asked) {
      os << within_tolerance << " of " << differing_tensors
         << " differing tensors (over all steps) within the tolerance on sum and L2 norm";
      if (!beyond_tolerance) {
        os << ": within tolerance, not bitwise\n";
      } else {
        os << "; beyond it first: step " << beyond_tolerance->step << ", tensor "
           << beyond_tolerance->tensor << " (" << beyond_tolerance->what << ")";
        if (beyond_tolerance->what == "values") {
          os << ": sum differs by " << beyond_tolerance->sum_diff << ", L2 norm by "
             << beyond_tolerance->norm_diff;
        }
        os << "\n";
      }
    }
  }
  if (ops_step >= 0) {
    os << "ops of step " << ops_step << ": "
       << (first_op ? first_op->Describe() : "every op's inputs and outputs are equal") << "\n";
  } else if (!Bitwise()) {
    os << "to name the op: run both again with TRICKBENCH_OP_TRACE_STEP=" << first->step
       << " and diff those traces\n";
  }
  for (const auto& line : determinism_costs) os << line << "\n";
  if (!environment_differences.empty()) {
    os << "environments differ (" << name_a << " | " << name_b << "):\n";
    for (const auto& line : environment_differences) os << "  " << line << "\n";
  }
  return os.str();
}

}  // namespace trickbench
