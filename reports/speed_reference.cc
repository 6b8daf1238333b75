#include "reports/speed_reference.h"

#include <cmath>

#include "reports/thresholds.h"
#include "stats/speed_adjusted.h"

namespace trickbench {
namespace reports {
namespace {

const Variant* Find(const TrickReport& t, const VariantEffect& e) {
  for (const Variant& v : t.variants) {
    if (v.case_name == e.case_name && v.name == e.variant) return &v;
  }
  return nullptr;
}

// Per process, the log of its median probe time; empty (with *why) when a process has
// none or the record does not line up with the processes.
std::vector<double> LogProbes(const Variant* v, const char* side, std::string* why) {
  if (!v || v->process_probe_ns.size() != v->log_ratios.size() || v->log_ratios.empty()) {
    *why = std::string("the ") + side + " report has no speed probe for it";
    return {};
  }
  std::vector<double> out;
  for (double p : v->process_probe_ns) {
    if (!(p > 0)) {
      *why = std::string("a process of the ") + side +
             " run has no speed probe (written before probe_ns)";
      return {};
    }
    out.push_back(std::log(p));
  }
  return out;
}

}  // namespace

ComparedSides AtOneSpeed(const TrickReport& old_trick, const VariantEffect& old_effect,
                         const TrickReport& new_trick, const VariantEffect& new_effect) {
  ComparedSides out;
  out.old_side = old_effect.time;
  out.new_side = new_effect.time;
  const Variant* ov = Find(old_trick, old_effect);
  const Variant* nv = Find(new_trick, new_effect);
  const std::vector<double> op = LogProbes(ov, "old", &out.as_measured_because);
  if (op.empty()) return out;
  const std::vector<double> np = LogProbes(nv, "new", &out.as_measured_because);
  if (np.empty()) return out;
  const stats::OneSpeed s = stats::AtOldRunsSpeed(ov->log_ratios, op, nv->log_ratios, np,
                                                  1 - kAlpha, kImpreciseHalfWidth);
  if (!s.adjusted) {
    out.as_measured_because = s.why_not;
    return out;
  }
  out.old_side = s.old_side;
  out.new_side = s.new_side;
  out.reference_probe_ns = std::exp(s.reference);
  out.as_measured_because.clear();
  return out;
}

}  // namespace reports
}  // namespace trickbench
