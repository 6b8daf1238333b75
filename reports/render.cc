#include "reports/render.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "common/atomic_file.h"

namespace trickbench {
namespace reports {
namespace {

const char* kNoisyMark = "NOISY";

std::string Ratio(double r) { return FormatFixed(r, 2) + "x"; }

std::string SpeedupText(const Comparison& c) {
  if (!c.timed) return "-";
  return Ratio(c.speedup) + " [" + Ratio(c.ci_low) + ", " + Ratio(c.ci_high) + "]";
}

std::string MemoryText(const Comparison& c) {
  if (c.peak_bytes_baseline == 0 && c.peak_bytes_variant == 0) return "none seen";
  return FormatBytes(c.peak_bytes_baseline) + " -> " + FormatBytes(c.peak_bytes_variant) +
         (c.memory_change ? " (" + FormatPercent(*c.memory_change) + ")" : "");
}

std::string VerdictText(Verdict v, bool noisy) {
  return VerdictName(v) + (noisy ? std::string(" (") + kNoisyMark + ")" : "");
}

std::string OutcomeText(const Trick& t) {
  return t.outcome + (t.reason.empty() ? "" : ": " + t.reason);
}


std::string ToleranceText(const Trick& t) {
  if (t.bitwise) return "bitwise";
  return "rtol " + FormatFixed(t.rtol, 6) + ", atol " + FormatFixed(t.atol, 6);
}

// "yes" when every optimized variant matched its baseline within the tolerance.
std::string EquivalenceText(const Trick& t) {
  int total = 0, equal = 0;
  for (const auto& v : t.variants) {
    if (v.baseline) continue;
    ++total;
    equal += v.equivalent;
  }
  if (total == 0) return "not checked";
  if (equal == total) return "yes";
  return "no (" + std::to_string(total - equal) + " of " + std::to_string(total) + " differ)";
}

std::string ReproText(const Trick& t) {
  if (!t.reproducibility) return "not recorded";
  const auto& r = *t.reproducibility;
  if (!r.checked) return "not checked" + (r.detail.empty() ? "" : ": " + r.detail);
  return std::string(r.bitwise_reproducible ? "yes" : "NO") +
         (r.fingerprint.empty() ? "" : " (" + r.fingerprint.substr(0, 16) + ")");
}

std::string StatsLine(const Variant& v) {
  return FormatNs(v.median) + " | " + FormatNs(v.iqr) + " (" + FormatPercent(v.relative_iqr, 1, false) +
         ") | " + FormatPercent(v.cv, 1, false) + " | " + std::to_string(v.samples_ns.size());
}

std::string Title(const Report& r) { return "trickbench report: " + r.source; }

std::string SummaryLine(const Report& r) {
  const ReportCounts n = Count(r);
  return std::to_string(n.tricks) + " tricks: " + std::to_string(n.holds) + " hold, " +
         std::to_string(n.does_not_hold) + " do not hold here, " + std::to_string(n.inconclusive) +
         " inconclusive, " + std::to_string(n.not_applicable) + " not applicable; " +
         std::to_string(n.noisy) + " with noisy timings (marked " + kNoisyMark +
         ", never a finding).";
}

std::string MethodLine() {
  return "Speedup = median(baseline) / median(variant) with a " +
         FormatPercent(1 - kAlpha, 0, false) +
         " Hodges-Lehmann interval; p = two-sided Mann-Whitney U (as Google Benchmark's "
         "compare.py); significant below " + FormatFixed(kAlpha, 2) + "; noisy = IQR/median above " +
         FormatPercent(kNoiseThreshold, 0, false) + "; no effect = interval within +-" +
         FormatPercent(kNoEffectBand, 0, false) + ".";
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string SettingName(const std::string& case_name, const std::string& variant) {
  return case_name.empty() ? variant : case_name + "/" + variant;
}

// ---------------------------------------------------------------- Markdown

std::string RenderMarkdown(const Report& r) {
  std::ostringstream md;
  md << "# " << Title(r) << "\n\n";
  md << "Run " << r.source << ": started " << (r.started.empty() ? "?" : r.started)
     << ", finished " << (r.finished.empty() ? "?" : r.finished)
     << (r.complete ? "" : " (INCOMPLETE: run-all did not finish)") << ".";
  if (!r.forwarded_flags.empty()) {
    md << " Flags:";
    for (const auto& f : r.forwarded_flags) md << " `" << f << "`";
  }
  md << "\n\n" << SummaryLine(r) << "\n\n" << MethodLine() << "\n\n";

  md << "## Summary\n\n| trick | setting | speedup [95% CI] | p | peak memory | verdict |\n"
        "|---|---|---|---|---|---|\n";
  for (const Trick& t : r.tricks) {
    if (t.comparisons.empty()) {
      md << "| " << t.id << " | - | - | - | - | " << VerdictName(t.verdict) << " ("
         << MarkdownCell(OutcomeText(t)) << ") |\n";
      continue;
    }
    for (const Comparison& c : t.comparisons) {
      md << "| " << t.id << " | " << MarkdownCell(SettingName(c.case_name, c.variant)) << " vs "
         << MarkdownCell(c.baseline) << " | " << SpeedupText(c) << " | "
         << (c.timed ? FormatP(c.p_value) : "-") << " | " << MemoryText(c) << " | "
         << VerdictText(c.verdict, c.noisy)
         << (t.outcome == "ok" ? "" : " (" + MarkdownCell(OutcomeText(t)) + ")") << " |\n";
    }
  }

  md << "\n## Reproducibility and equivalence\n\n"
        "| trick | reproduced variant | bitwise reproducible | matches baseline | tolerance |\n"
        "|---|---|---|---|---|\n";
  for (const Trick& t : r.tricks) {
    md << "| " << t.id << " | " << (t.reproduced_variant.empty() ? "-" : t.reproduced_variant)
       << " | " << MarkdownCell(ReproText(t)) << " | " << EquivalenceText(t) << " | "
       << (t.category.empty() && t.variants.empty() ? "-" : ToleranceText(t)) << " |\n";
  }

  md << "\n## Environment\n\n| key | value |\n|---|---|\n";
  for (const auto& [k, v] : r.environment) md << "| " << k << " | " << MarkdownCell(v) << " |\n";
  if (!r.environment_notes.empty()) {
    md << "\n> **Warning:** not every trick ran in the same environment:\n";
    for (const auto& n : r.environment_notes) md << "> - " << MarkdownCell(n) << "\n";
  }

  md << "\n## Details\n";
  for (const Trick& t : r.tricks) {
    md << "\n### " << t.id << ": " << VerdictText(t.verdict, t.noisy) << "\n\n";
    if (!t.claim.empty()) {
      md << "Claim: \"" << t.claim << "\" (" << t.category << "; " << t.source << "). Judged on: "
         << (t.claims_time ? "time" : "") << (t.claims_time && t.claims_memory ? " and " : "")
         << (t.claims_memory ? "memory" : "") << ".\n\n";
    }
    md << "Outcome: " << OutcomeText(t) << ". Verdict: " << t.verdict_detail << ".\n";
    if (!t.device.empty()) {
      md << "Device " << t.device << ", " << t.threads << " threads, " << t.repetitions
         << " repetitions x " << FormatFixed(t.min_time, 3) << " s, seed " << t.seed << ".\n";
    }
    if (!t.variants.empty()) {
      md << "\n| setting | median | IQR (/median) | CV | reps | peak memory | equivalent | active |\n"
            "|---|---|---|---|---|---|---|---|\n";
      for (const Variant& v : t.variants) {
        md << "| " << MarkdownCell(SettingName(v.case_name, v.name)) << (v.baseline ? " (baseline)" : "")
           << " | "
           << (v.samples_ns.empty() ? "- | - | - | 0" : StatsLine(v))
           << (v.noisy ? std::string(" ") + kNoisyMark : "") << " | " << FormatBytes(v.peak_bytes)
           << " | " << (v.baseline ? "-" : v.equivalent ? "yes" : "NO: " + MarkdownCell(v.equivalence_detail))
           << " | " << (v.active ? "yes" : "NO: " + MarkdownCell(v.inactive_reason)) << " |\n";
      }
    }
    for (const Comparison& c : t.comparisons) {
      md << "\n- " << SettingName(c.case_name, c.variant) << " vs " << c.baseline << ": "
         << VerdictText(c.verdict, c.noisy) << ": " << c.verdict_detail << ".";
    }
    if (!t.comparisons.empty()) md << "\n";
    if (t.reproducibility && !t.reproducibility->detail.empty()) {
      md << "\nReproducibility: " << ReproText(t) << ": " << t.reproducibility->detail << "\n";
    }
  }
  return md.str();
}

// ---------------------------------------------------------------- HTML

namespace {

std::string VerdictClass(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kDoesNotHold: return "nothold";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kNotApplicable: return "na";
  }
  return "na";
}

std::string VerdictColor(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "#1a7f37";
    case Verdict::kDoesNotHold: return "#cf222e";
    case Verdict::kInconclusive: return "#9a6700";
    case Verdict::kNotApplicable: return "#6e7781";
  }
  return "#6e7781";
}

std::string Num(double v) { return FormatFixed(v, 1); }

struct Row {
  std::string label;
  const Comparison* c;
};

std::vector<Row> ChartRows(const Report& r, bool timed) {
  std::vector<Row> rows;
  for (const Trick& t : r.tricks) {
    for (const Comparison& c : t.comparisons) {
      if (timed ? c.timed : c.memory_change.has_value()) {
        rows.push_back({t.id + " " + SettingName(c.case_name, c.variant), &c});
      }
    }
  }
  return rows;
}

// Speedups with their intervals on a log axis; 1x is the line of no change.
std::string SpeedupChart(const Report& r) {
  const auto rows = ChartRows(r, true);
  if (rows.empty()) return "<p>No timed comparison in this report.</p>\n";
  double lo = 0.5, hi = 2.0;
  for (const auto& row : rows) {
    lo = std::min(lo, row.c->ci_low);
    hi = std::max(hi, row.c->ci_high);
  }
  const double llo = std::log10(lo) - 0.05, lhi = std::log10(hi) + 0.05;
  const int label_w = 330, plot_w = 460, row_h = 22, top = 26;
  const int height = top + row_h * static_cast<int>(rows.size()) + 10;
  const int width = label_w + plot_w + 20;
  auto x = [&](double v) { return label_w + (std::log10(v) - llo) / (lhi - llo) * plot_w; };
  std::ostringstream s;
  s << "<svg class=\"chart\" role=\"img\" aria-label=\"speedups with 95% intervals\" width=\"" << width
    << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\">\n";
  for (double tick : {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
    if (tick < std::pow(10, llo) || tick > std::pow(10, lhi)) continue;
    s << "<line x1=\"" << Num(x(tick)) << "\" x2=\"" << Num(x(tick)) << "\" y1=\"" << top - 6
      << "\" y2=\"" << height - 6 << "\" stroke=\"" << (tick == 1.0 ? "#24292f" : "#d0d7de")
      << "\" stroke-width=\"" << (tick == 1.0 ? 1.5 : 1) << "\"/>"
      << "<text x=\"" << Num(x(tick)) << "\" y=\"14\" text-anchor=\"middle\" class=\"axis\">"
      << FormatFixed(tick, tick < 1 ? 2 : 0) << "x</text>\n";
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Comparison& c = *rows[i].c;
    const double y = top + row_h * i + row_h / 2.0;
    const std::string color = c.noisy ? "#8c959f" : VerdictColor(c.verdict);
    s << "<text x=\"" << label_w - 8 << "\" y=\"" << Num(y + 4) << "\" text-anchor=\"end\">"
      << HtmlEscape(rows[i].label) << (c.noisy ? " (NOISY)" : "") << "</text>"
      << "<line x1=\"" << Num(x(c.ci_low)) << "\" x2=\"" << Num(x(c.ci_high)) << "\" y1=\""
      << Num(y) << "\" y2=\"" << Num(y) << "\" stroke=\"" << color << "\" stroke-width=\"3\""
      << (c.noisy ? " stroke-dasharray=\"4 3\"" : "") << "/>"
      << "<circle cx=\"" << Num(x(c.speedup)) << "\" cy=\"" << Num(y) << "\" r=\"5\" fill=\""
      << color << "\"><title>" << HtmlEscape(SpeedupText(c) + ", p=" + FormatP(c.p_value) + ", " +
                                             VerdictText(c.verdict, c.noisy))
      << "</title></circle>\n";
  }
  s << "</svg>\n";
  return s.str();
}

// Peak memory change per setting, as a bar from 0 %.
std::string MemoryChart(const Report& r) {
  const auto rows = ChartRows(r, false);
  if (rows.empty()) return "<p>No memory measurement in this report.</p>\n";
  double span = 0.1;
  for (const auto& row : rows) span = std::max(span, std::fabs(*row.c->memory_change));
  span = std::min(span, 5.0);  // beyond +500 % the bar is clipped, the label says the value
  const int label_w = 330, plot_w = 460, row_h = 22, top = 26;
  const int height = top + row_h * static_cast<int>(rows.size()) + 10;
  const int width = label_w + plot_w + 90;
  const double zero = label_w + plot_w / 2.0;
  auto x = [&](double f) {
    return zero + std::max(-1.0, std::min(1.0, f / span)) * plot_w / 2.0;
  };
  std::ostringstream s;
  s << "<svg class=\"chart\" role=\"img\" aria-label=\"peak memory change\" width=\"" << width
    << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\">\n";
  for (double f : {-span, -span / 2, 0.0, span / 2, span}) {
    s << "<line x1=\"" << Num(x(f)) << "\" x2=\"" << Num(x(f)) << "\" y1=\"" << top - 6
      << "\" y2=\"" << height - 6 << "\" stroke=\"" << (f == 0 ? "#24292f" : "#d0d7de")
      << "\"/><text x=\"" << Num(x(f)) << "\" y=\"14\" text-anchor=\"middle\" class=\"axis\">"
      << HtmlEscape(FormatPercent(f, 0)) << "</text>\n";
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Comparison& c = *rows[i].c;
    const double f = *c.memory_change;
    const double y = top + row_h * i + 4;
    const double x0 = std::min(x(0), x(f)), w = std::max(1.0, std::fabs(x(f) - x(0)));
    s << "<text x=\"" << label_w - 8 << "\" y=\"" << Num(y + 12) << "\" text-anchor=\"end\">"
      << HtmlEscape(rows[i].label) << "</text><rect x=\"" << Num(x0) << "\" y=\"" << Num(y)
      << "\" width=\"" << Num(w) << "\" height=\"14\" fill=\"" << (f < 0 ? "#1a7f37" : f > 0 ? "#cf222e" : "#8c959f")
      << "\"><title>" << HtmlEscape(MemoryText(c)) << "</title></rect><text x=\""
      << Num(label_w + plot_w + 6) << "\" y=\"" << Num(y + 12) << "\">"
      << HtmlEscape(FormatPercent(f)) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

constexpr char kCss[] = R"(body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#24292f;padding:0 16px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{background:#f6f8fa;padding:0 3px}
.holds{color:#1a7f37;font-weight:600}.nothold{color:#cf222e;font-weight:600}.inconclusive{color:#9a6700;font-weight:600}.na{color:#6e7781}
.noisy{background:#fff8c5;border:1px solid #d4a72c;border-radius:3px;padding:0 4px;font-size:12px;margin-left:4px}
.warn{background:#fff8c5;border-left:4px solid #d4a72c;padding:8px 12px}
.chart text{font-size:12px;fill:#24292f}.chart .axis{fill:#57606a;font-size:11px}
details{margin:4px 0 12px}.samples{font-family:monospace;font-size:12px;color:#57606a}
section.trick{border-top:1px solid #d0d7de;padding-top:6px}
)";

std::string VerdictSpan(Verdict v, bool noisy) {
  return "<span class=\"" + VerdictClass(v) + "\">" + HtmlEscape(VerdictName(v)) + "</span>" +
         (noisy ? std::string("<span class=\"noisy\">") + kNoisyMark + "</span>" : "");
}

}  // namespace

std::string RenderHtml(const Report& r) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
    << HtmlEscape(Title(r)) << "</title>\n<style>\n" << kCss << "</style>\n</head>\n<body>\n";
  h << "<h1>" << HtmlEscape(Title(r)) << "</h1>\n<p>Run " << HtmlEscape(r.source) << ": started "
    << HtmlEscape(r.started) << ", finished " << HtmlEscape(r.finished)
    << (r.complete ? "" : " <strong>(INCOMPLETE: run-all did not finish)</strong>") << ".</p>\n";
  h << "<p>" << HtmlEscape(SummaryLine(r)) << "</p>\n<p>" << HtmlEscape(MethodLine()) << "</p>\n";
  if (!r.environment_notes.empty()) {
    h << "<div class=\"warn\"><strong>Warning:</strong> not every trick ran in the same "
         "environment:<ul>\n";
    for (const auto& n : r.environment_notes) h << "<li>" << HtmlEscape(n) << "</li>\n";
    h << "</ul></div>\n";
  }

  h << "<h2>Summary</h2>\n<table id=\"summary\">\n<thead><tr><th>trick</th><th>setting</th>"
       "<th>speedup [95% CI]</th><th>p</th><th>peak memory</th><th>verdict</th></tr></thead>\n<tbody>\n";
  for (const Trick& t : r.tricks) {
    if (t.comparisons.empty()) {
      h << "<tr><td><a href=\"#t-" << HtmlEscape(t.id) << "\">" << HtmlEscape(t.id)
        << "</a></td><td>-</td><td>-</td><td>-</td><td>-</td><td>" << VerdictSpan(t.verdict, false)
        << " (" << HtmlEscape(OutcomeText(t)) << ")</td></tr>\n";
      continue;
    }
    for (const Comparison& c : t.comparisons) {
      h << "<tr><td><a href=\"#t-" << HtmlEscape(t.id) << "\">" << HtmlEscape(t.id) << "</a></td><td>"
        << HtmlEscape(SettingName(c.case_name, c.variant) + " vs " + c.baseline) << "</td><td>"
        << HtmlEscape(SpeedupText(c)) << "</td><td>" << (c.timed ? FormatP(c.p_value) : "-")
        << "</td><td>" << HtmlEscape(MemoryText(c)) << "</td><td>" << VerdictSpan(c.verdict, c.noisy)
        << (t.outcome == "ok" ? "" : " (" + HtmlEscape(OutcomeText(t)) + ")") << "</td></tr>\n";
    }
  }
  h << "</tbody>\n</table>\n";

  h << "<h2>Speedups (95% intervals, log scale)</h2>\n" << SpeedupChart(r);
  h << "<h2>Peak memory change</h2>\n" << MemoryChart(r);

  h << "<h2>Reproducibility and equivalence</h2>\n<table id=\"reproducibility\">\n<thead><tr>"
       "<th>trick</th><th>reproduced variant</th><th>bitwise reproducible</th><th>matches baseline</th>"
       "<th>tolerance</th></tr></thead>\n<tbody>\n";
  for (const Trick& t : r.tricks) {
    h << "<tr><td>" << HtmlEscape(t.id) << "</td><td>" << HtmlEscape(t.reproduced_variant) << "</td><td>"
      << HtmlEscape(ReproText(t)) << "</td><td>" << HtmlEscape(EquivalenceText(t)) << "</td><td>"
      << (t.category.empty() && t.variants.empty() ? "-" : HtmlEscape(ToleranceText(t)))
      << "</td></tr>\n";
  }
  h << "</tbody>\n</table>\n";

  h << "<h2>Environment</h2>\n<table id=\"environment\">\n<tbody>\n";
  for (const auto& [k, v] : r.environment) {
    h << "<tr><th>" << HtmlEscape(k) << "</th><td>" << HtmlEscape(v) << "</td></tr>\n";
  }
  h << "</tbody>\n</table>\n";

  h << "<h2>Details</h2>\n";
  for (const Trick& t : r.tricks) {
    h << "<section class=\"trick\" id=\"t-" << HtmlEscape(t.id) << "\">\n<h3>" << HtmlEscape(t.id)
      << ": " << VerdictSpan(t.verdict, t.noisy) << "</h3>\n";
    if (!t.claim.empty()) {
      h << "<p>Claim: &ldquo;" << HtmlEscape(t.claim) << "&rdquo; (" << HtmlEscape(t.category) << "; "
        << HtmlEscape(t.source) << "). Judged on: " << (t.claims_time ? "time" : "")
        << (t.claims_time && t.claims_memory ? " and " : "") << (t.claims_memory ? "memory" : "")
        << ".</p>\n";
    }
    h << "<p>Outcome: " << HtmlEscape(OutcomeText(t)) << ". Verdict: " << HtmlEscape(t.verdict_detail)
      << ".</p>\n";
    if (!t.variants.empty()) {
      h << "<table>\n<thead><tr><th>setting</th><th>median</th><th>IQR</th><th>CV</th><th>reps</th>"
           "<th>peak memory</th><th>equivalent</th><th>active</th></tr></thead>\n<tbody>\n";
      for (const Variant& v : t.variants) {
        h << "<tr><td>" << HtmlEscape(SettingName(v.case_name, v.name)) << (v.baseline ? " (baseline)" : "")
          << "</td>";
        if (v.samples_ns.empty()) {
          h << "<td>-</td><td>-</td><td>-</td><td>0</td>";
        } else {
          h << "<td>" << FormatNs(v.median) << (v.noisy ? std::string("<span class=\"noisy\">") + kNoisyMark + "</span>" : "")
            << "</td><td>" << FormatNs(v.iqr) << " (" << FormatPercent(v.relative_iqr, 1, false)
            << ")</td><td>" << FormatPercent(v.cv, 1, false) << "</td><td>" << v.samples_ns.size()
            << "</td>";
        }
        h << "<td>" << FormatBytes(v.peak_bytes) << "</td><td>"
          << (v.baseline ? "-" : v.equivalent ? "yes" : "NO: " + HtmlEscape(v.equivalence_detail))
          << "</td><td>" << (v.active ? "yes" : "NO: " + HtmlEscape(v.inactive_reason)) << "</td></tr>\n";
      }
      h << "</tbody>\n</table>\n";
    }
    if (!t.comparisons.empty()) {
      h << "<ul>\n";
      for (const Comparison& c : t.comparisons) {
        h << "<li>" << HtmlEscape(SettingName(c.case_name, c.variant) + " vs " + c.baseline) << ": "
          << VerdictSpan(c.verdict, c.noisy) << ": " << HtmlEscape(c.verdict_detail) << ".</li>\n";
      }
      h << "</ul>\n";
    }
    if (t.reproducibility) {
      h << "<p>Reproducibility: " << HtmlEscape(ReproText(t))
        << (t.reproducibility->detail.empty() ? "" : ": " + HtmlEscape(t.reproducibility->detail))
        << "</p>\n";
    }
    bool any_samples = false;
    for (const Variant& v : t.variants) any_samples |= !v.samples_ns.empty();
    if (any_samples) {
      h << "<details><summary>raw samples (one per repetition)</summary>\n";
      for (const Variant& v : t.variants) {
        h << "<div class=\"samples\">" << HtmlEscape(SettingName(v.case_name, v.name)) << ":";
        for (double x : v.samples_ns) h << " " << HtmlEscape(FormatNs(x));
        h << "</div>\n";
      }
      h << "</details>\n";
    }
    h << "</section>\n";
  }
  h << "</body>\n</html>\n";
  return h.str();
}

bool WriteReportFiles(const Report& report, const std::string& dir,
                      std::vector<std::string>* paths, std::string* error) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"report.json", ReportToJson(report).dump(2) + "\n"},
      {"report.md", RenderMarkdown(report)},
      {"report.html", RenderHtml(report)}};
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    if (!WriteFileAtomically(path, text, error)) return false;
    if (paths) paths->push_back(path);
  }
  return true;
}

}  // namespace reports
}  // namespace trickbench
