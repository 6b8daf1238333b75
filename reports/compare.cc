#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "reports/analyze.h"
#include "reports/format.h"
#include "reports/stats.h"

namespace trickbench {
namespace reports {

const std::vector<std::string>& IncomparableEnvironmentKeys() {
  static const std::vector<std::string> keys = {
      "device",        "device_name",   "torch_version", "libtorch_build", "cuda_version",
      "cudnn_version", "intra_op_threads", "inter_op_threads", "blas", "blas_library",
      "determinism"};
  return keys;
}

ReportDiff CompareReports(const Report& o, const Report& n) {
  ReportDiff c;
  c.old_source = o.source;
  c.new_source = n.source;
  std::map<std::string, const Trick*> old_by_id, new_by_id;
  for (const auto& t : o.tricks) old_by_id[t.id] = &t;
  for (const auto& t : n.tricks) new_by_id[t.id] = &t;
  for (const auto& t : o.tricks) {
    if (!new_by_id.count(t.id)) c.only_old.push_back(t.id);
  }
  for (const auto& t : n.tricks) {
    if (!old_by_id.count(t.id)) c.only_new.push_back(t.id);
  }
  double log_sum = 0;
  int log_n = 0;
  for (const auto& nt : n.tricks) {
    auto it = old_by_id.find(nt.id);
    if (it == old_by_id.end()) continue;
    const Trick& ot = *it->second;
    if (ot.outcome != results::RunOutcome::kOk || nt.outcome != results::RunOutcome::kOk) {
      c.not_compared.push_back(nt.id + ": " + results::Name(ot.outcome) + " -> " +
                               results::Name(nt.outcome));
      continue;
    }
    for (const Variant& nv : nt.variants) {
      for (const Variant& ov : ot.variants) {
        if (ov.case_name != nv.case_name || ov.name != nv.name) continue;
        if (ov.samples_ns.empty() || nv.samples_ns.empty()) continue;
        BenchmarkChange b;
        b.trick = nt.id;
        b.case_name = nv.case_name;
        b.variant = nv.name;
        b.baseline = nv.baseline;
        b.old_median = ov.median;
        b.new_median = nv.median;
        const RatioCI ci = RatioInterval(nv.samples_ns, ov.samples_ns, 1 - kAlpha);
        b.ratio = ci.ratio, b.ci_low = ci.low, b.ci_high = ci.high;
        b.p_value = MannWhitneyU(ov.samples_ns, nv.samples_ns).p_value;
        b.significant = b.p_value < kAlpha;
        b.noisy = ov.noisy || nv.noisy;
        b.old_n = static_cast<int>(ov.samples_ns.size());
        b.new_n = static_cast<int>(nv.samples_ns.size());
        log_sum += std::log(b.ratio);
        ++log_n;
        c.changes.push_back(b);
      }
    }
    for (const VariantEffect& nc : nt.effects) {
      for (const VariantEffect& oc : ot.effects) {
        if (oc.case_name != nc.case_name || oc.variant != nc.variant || !oc.timed || !nc.timed) {
          continue;
        }
        c.speedups.push_back({nt.id, nc.case_name, nc.variant, oc.speedup, nc.speedup,
                              VerdictName(oc.verdict) + (oc.noisy ? " (NOISY)" : ""),
                              VerdictName(nc.verdict) + (nc.noisy ? " (NOISY)" : "")});
      }
    }
  }
  if (log_n > 0) c.geomean_ratio = std::exp(log_sum / log_n);
  std::set<std::string> keys;
  for (const auto& [k, v] : o.environment) keys.insert(k);
  for (const auto& [k, v] : n.environment) keys.insert(k);
  const auto& bad = IncomparableEnvironmentKeys();
  for (const auto& k : keys) {
    if (DescribesOneHost(k)) continue;
    const auto oi = o.environment.find(k), ni = n.environment.find(k);
    const std::string ov = oi == o.environment.end() ? "(absent)" : oi->second;
    const std::string nv = ni == n.environment.end() ? "(absent)" : ni->second;
    if (ov == nv) continue;
    c.environment.push_back({k, ov, nv, std::find(bad.begin(), bad.end(), k) != bad.end()});
  }
  return c;
}

int SignificantRegressions(const ReportDiff& c, double percent) {
  int n = 0;
  for (const auto& b : c.changes) {
    n += b.significant && !b.noisy && b.ratio > 1 + percent / 100;
  }
  return n;
}

namespace {

using doc::Code;
using doc::Plain;
using doc::Text;
using doc::Tone;

std::string ChangeKind(const BenchmarkChange& b) {
  if (b.noisy) return "NOISY (not a finding)";
  if (!b.significant) return "no significant change";
  return b.ratio > 1 ? "slower" : "faster";
}

Tone ChangeTone(const BenchmarkChange& b) {
  if (b.noisy) return Tone::kFlagged;
  if (!b.significant) return Tone::kPlain;
  return b.ratio > 1 ? Tone::kBad : Tone::kGood;
}

std::string ChangeText(const BenchmarkChange& b) {
  return FormatPercent(b.ratio - 1) + " [" + FormatPercent(b.ci_low - 1) + ", " +
         FormatPercent(b.ci_high - 1) + "]";
}

std::string GeomeanLine(const ReportDiff& c) {
  if (!c.geomean_ratio) return "No benchmark present on both sides.";
  int sig = 0, noisy = 0;
  for (const auto& b : c.changes) {
    sig += b.significant && !b.noisy;
    noisy += b.noisy;
  }
  return "Geometric mean of new/old median time over " + std::to_string(c.changes.size()) +
         " benchmarks: " + FormatFixed(*c.geomean_ratio, 3) + " (" +
         FormatPercent(*c.geomean_ratio - 1) + "). Significant changes (p < " +
         FormatFixed(kAlpha, 2) + ", not noisy): " + std::to_string(sig) + " of " +
         std::to_string(c.changes.size()) + "; noisy: " + std::to_string(noisy) + ".";
}

Text RegressionLine(const ReportDiff& c, double fail_percent) {
  const int n = SignificantRegressions(c, fail_percent);
  if (n == 0) {
    return {Plain("CI check: no significant regression beyond " + FormatFixed(fail_percent, 1) + "%.",
                  Tone::kGood)};
  }
  return {Plain("CI check FAILED: " + std::to_string(n) + " significant regression(s) beyond " +
                    FormatFixed(fail_percent, 1) + "%.",
                Tone::kBad)};
}

Text EnvironmentItem(const EnvDifference& e) {
  return {Plain(e.key + ": "), Code(e.old_value), Plain(" -> "), Code(e.new_value)};
}

doc::Table ChangesTable(const ReportDiff& c) {
  doc::Table table("changes", {"trick", "setting", "old median", "new median", "change [95% CI]",
                               "p", "result"});
  for (const auto& b : c.changes) {
    table.AddRow({b.trick, SettingName(b.case_name, b.variant) + (b.baseline ? " (baseline)" : ""),
                  FormatNs(b.old_median), FormatNs(b.new_median), ChangeText(b), FormatP(b.p_value),
                  doc::Cell(ChangeKind(b), ChangeTone(b))});
  }
  return table;
}

}  // namespace

doc::Document DiffDocument(const ReportDiff& c, std::optional<double> fail_percent) {
  doc::Document d;
  d.title = "trickbench compare: " + c.old_source + " -> " + c.new_source;
  doc::Note incomparable{{doc::Strong("Warning: the environments differ; these numbers are not "
                                      "comparable as a before/after of the code:")},
                         {}};
  doc::List other;
  for (const auto& e : c.environment) {
    (e.incomparable ? incomparable.items : other.items).push_back(EnvironmentItem(e));
  }
  if (!incomparable.items.empty()) d.blocks.push_back(incomparable);
  d.blocks.push_back(doc::Paragraph{GeomeanLine(c)});
  if (fail_percent) d.blocks.push_back(doc::Paragraph{RegressionLine(c, *fail_percent)});
  d.blocks.push_back(ChangesTable(c));
  if (!c.speedups.empty()) {
    doc::Table speedups("speedups", {"trick", "setting", "old", "new", "old verdict", "new verdict"});
    for (const auto& s : c.speedups) {
      speedups.AddRow({s.trick, SettingName(s.case_name, s.variant), FormatRatio(s.old_speedup),
                       FormatRatio(s.new_speedup), s.old_verdict, s.new_verdict});
    }
    d.sections.push_back({"Speedups over the baseline", "", {speedups}, {}});
  }
  if (!c.only_old.empty() || !c.only_new.empty() || !c.not_compared.empty()) {
    doc::List list;
    for (const auto& id : c.only_old) list.items.push_back(id + ": only in old");
    for (const auto& id : c.only_new) list.items.push_back(id + ": only in new");
    for (const auto& s : c.not_compared) list.items.push_back(s + " (no timings on both sides)");
    d.sections.push_back({"Not compared", "", {list}, {}});
  }
  if (!other.items.empty()) d.sections.push_back({"Other environment differences", "", {other}, {}});
  return d;
}

}  // namespace reports
}  // namespace trickbench
