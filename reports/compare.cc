#include "reports/compare.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "reports/render.h"
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

Comparison2 CompareReports(const Report& o, const Report& n) {
  Comparison2 c;
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
    if (ot.outcome != "ok" || nt.outcome != "ok") {
      c.not_compared.push_back(nt.id + ": " + ot.outcome + " -> " + nt.outcome);
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
    for (const Comparison& nc : nt.comparisons) {
      for (const Comparison& oc : ot.comparisons) {
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
    if (k == "host_name" || k == "mhz_per_cpu") continue;
    const auto oi = o.environment.find(k), ni = n.environment.find(k);
    const std::string ov = oi == o.environment.end() ? "(absent)" : oi->second;
    const std::string nv = ni == n.environment.end() ? "(absent)" : ni->second;
    if (ov == nv) continue;
    c.environment.push_back({k, ov, nv, std::find(bad.begin(), bad.end(), k) != bad.end()});
  }
  return c;
}

int SignificantRegressions(const Comparison2& c, double percent) {
  int n = 0;
  for (const auto& b : c.changes) {
    n += b.significant && !b.noisy && b.ratio > 1 + percent / 100;
  }
  return n;
}

namespace {

std::string ChangeKind(const BenchmarkChange& b) {
  if (b.noisy) return "NOISY (not a finding)";
  if (!b.significant) return "no significant change";
  return b.ratio > 1 ? "slower" : "faster";
}

std::string Title(const Comparison2& c) {
  return "trickbench compare: " + c.old_source + " -> " + c.new_source;
}

std::string GeomeanLine(const Comparison2& c) {
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

std::string RegressionLine(const Comparison2& c, std::optional<double> fail_percent) {
  if (!fail_percent) return "";
  const int n = SignificantRegressions(c, *fail_percent);
  return n == 0 ? "CI check: no significant regression beyond " + FormatFixed(*fail_percent, 1) + "%."
                : "CI check FAILED: " + std::to_string(n) + " significant regression(s) beyond " +
                      FormatFixed(*fail_percent, 1) + "%.";
}

std::string ChangeText(const BenchmarkChange& b) {
  return FormatPercent(b.ratio - 1) + " [" + FormatPercent(b.ci_low - 1) + ", " +
         FormatPercent(b.ci_high - 1) + "]";
}

}  // namespace

std::string RenderCompareMarkdown(const Comparison2& c, std::optional<double> fail_percent) {
  std::ostringstream md;
  md << "# " << Title(c) << "\n\n";
  bool warn = false;
  for (const auto& e : c.environment) warn |= e.incomparable;
  if (warn) {
    md << "> **Warning: the environments differ; these numbers are not comparable as a "
          "before/after of the code:**\n";
    for (const auto& e : c.environment) {
      if (e.incomparable) md << "> - " << e.key << ": `" << MarkdownCell(e.old_value) << "` -> `"
                             << MarkdownCell(e.new_value) << "`\n";
    }
    md << "\n";
  }
  md << GeomeanLine(c) << "\n";
  if (fail_percent) md << "\n" << RegressionLine(c, fail_percent) << "\n";
  md << "\n| trick | setting | old median | new median | change [95% CI] | p | result |\n"
        "|---|---|---|---|---|---|---|\n";
  for (const auto& b : c.changes) {
    md << "| " << b.trick << " | " << MarkdownCell(SettingName(b.case_name, b.variant))
       << (b.baseline ? " (baseline)" : "") << " | " << FormatNs(b.old_median) << " | "
       << FormatNs(b.new_median) << " | " << ChangeText(b) << " | " << FormatP(b.p_value) << " | "
       << ChangeKind(b) << " |\n";
  }
  if (!c.speedups.empty()) {
    md << "\n## Speedups over the baseline\n\n| trick | setting | old | new | old verdict | new verdict |\n"
          "|---|---|---|---|---|---|\n";
    for (const auto& s : c.speedups) {
      md << "| " << s.trick << " | " << MarkdownCell(SettingName(s.case_name, s.variant)) << " | "
         << FormatFixed(s.old_speedup, 2) << "x | " << FormatFixed(s.new_speedup, 2) << "x | "
         << s.old_verdict << " | " << s.new_verdict << " |\n";
    }
  }
  if (!c.only_old.empty() || !c.only_new.empty() || !c.not_compared.empty()) {
    md << "\n## Not compared\n\n";
    for (const auto& id : c.only_old) md << "- " << id << ": only in old\n";
    for (const auto& id : c.only_new) md << "- " << id << ": only in new\n";
    for (const auto& s : c.not_compared) md << "- " << MarkdownCell(s) << " (no timings on both sides)\n";
  }
  bool other = false;
  for (const auto& e : c.environment) other |= !e.incomparable;
  if (other) {
    md << "\n## Other environment differences\n\n";
    for (const auto& e : c.environment) {
      if (!e.incomparable) md << "- " << e.key << ": `" << MarkdownCell(e.old_value) << "` -> `"
                              << MarkdownCell(e.new_value) << "`\n";
    }
  }
  return md.str();
}

std::string RenderCompareHtml(const Comparison2& c, std::optional<double> fail_percent) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
    << HtmlEscape(Title(c)) << "</title>\n<style>\n"
    << "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#24292f;padding:0 16px}"
       "table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left}"
       "th{background:#f6f8fa}.slower{color:#cf222e;font-weight:600}.faster{color:#1a7f37;font-weight:600}"
       ".noisy{background:#fff8c5}.warn{background:#fff8c5;border-left:4px solid #d4a72c;padding:8px 12px}\n"
    << "</style>\n</head>\n<body>\n<h1>" << HtmlEscape(Title(c)) << "</h1>\n";
  bool warn = false;
  for (const auto& e : c.environment) warn |= e.incomparable;
  if (warn) {
    h << "<div class=\"warn\"><strong>Warning: the environments differ; these numbers are not "
         "comparable as a before/after of the code:</strong><ul>\n";
    for (const auto& e : c.environment) {
      if (e.incomparable) {
        h << "<li>" << HtmlEscape(e.key) << ": <code>" << HtmlEscape(e.old_value) << "</code> &rarr; <code>"
          << HtmlEscape(e.new_value) << "</code></li>\n";
      }
    }
    h << "</ul></div>\n";
  }
  h << "<p>" << HtmlEscape(GeomeanLine(c)) << "</p>\n";
  if (fail_percent) h << "<p><strong>" << HtmlEscape(RegressionLine(c, fail_percent)) << "</strong></p>\n";
  h << "<table id=\"changes\">\n<thead><tr><th>trick</th><th>setting</th><th>old median</th><th>new median</th>"
       "<th>change [95% CI]</th><th>p</th><th>result</th></tr></thead>\n<tbody>\n";
  for (const auto& b : c.changes) {
    const std::string cls = b.noisy ? "noisy" : !b.significant ? "" : b.ratio > 1 ? "slower" : "faster";
    h << "<tr><td>" << HtmlEscape(b.trick) << "</td><td>"
      << HtmlEscape(SettingName(b.case_name, b.variant) + (b.baseline ? " (baseline)" : ""))
      << "</td><td>" << FormatNs(b.old_median) << "</td><td>" << FormatNs(b.new_median) << "</td><td>"
      << HtmlEscape(ChangeText(b)) << "</td><td>" << HtmlEscape(FormatP(b.p_value)) << "</td><td class=\""
      << cls << "\">" << HtmlEscape(ChangeKind(b)) << "</td></tr>\n";
  }
  h << "</tbody>\n</table>\n";
  if (!c.speedups.empty()) {
    h << "<h2>Speedups over the baseline</h2>\n<table>\n<thead><tr><th>trick</th><th>setting</th><th>old</th>"
         "<th>new</th><th>old verdict</th><th>new verdict</th></tr></thead>\n<tbody>\n";
    for (const auto& s : c.speedups) {
      h << "<tr><td>" << HtmlEscape(s.trick) << "</td><td>" << HtmlEscape(SettingName(s.case_name, s.variant))
        << "</td><td>" << FormatFixed(s.old_speedup, 2) << "x</td><td>" << FormatFixed(s.new_speedup, 2)
        << "x</td><td>" << HtmlEscape(s.old_verdict) << "</td><td>" << HtmlEscape(s.new_verdict)
        << "</td></tr>\n";
    }
    h << "</tbody>\n</table>\n";
  }
  if (!c.only_old.empty() || !c.only_new.empty() || !c.not_compared.empty()) {
    h << "<h2>Not compared</h2>\n<ul>\n";
    for (const auto& id : c.only_old) h << "<li>" << HtmlEscape(id) << ": only in old</li>\n";
    for (const auto& id : c.only_new) h << "<li>" << HtmlEscape(id) << ": only in new</li>\n";
    for (const auto& s : c.not_compared) h << "<li>" << HtmlEscape(s) << " (no timings on both sides)</li>\n";
    h << "</ul>\n";
  }
  bool other = false;
  for (const auto& e : c.environment) other |= !e.incomparable;
  if (other) {
    h << "<h2>Other environment differences</h2>\n<ul>\n";
    for (const auto& e : c.environment) {
      if (!e.incomparable) {
        h << "<li>" << HtmlEscape(e.key) << ": <code>" << HtmlEscape(e.old_value) << "</code> &rarr; <code>"
          << HtmlEscape(e.new_value) << "</code></li>\n";
      }
    }
    h << "</ul>\n";
  }
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace reports
}  // namespace trickbench
