#include "reports/render.h"

#include <algorithm>
#include <filesystem>

#include "common/atomic_file.h"
#include "reports/analyze.h"
#include "reports/format.h"
#include "reports/html_printer.h"
#include "reports/markdown_printer.h"
#include "reports/report_json.h"
#include "reports/run_lines.h"

namespace trickbench {
namespace reports {
namespace {

using doc::Cell;
using doc::Plain;
using doc::Text;
using doc::Tone;

Tone VerdictTone(Verdict v) {
  switch (v) {
    case Verdict::kHolds:
      return Tone::kGood;
    case Verdict::kDoesNotHold:
      return Tone::kBad;
    case Verdict::kInconclusive:
      return Tone::kUncertain;
    case Verdict::kNotApplicable:
      return Tone::kMuted;
    case Verdict::kPartly:
      return Tone::kUncertain;
  }
  return Tone::kMuted;
}

Text VerdictText(Verdict v, bool imprecise) {
  Text t{Plain(VerdictName(v), VerdictTone(v))};
  if (imprecise) t += doc::Badge(kImpreciseMark);
  return t;
}

std::string Setting(const VariantEffect& e) { return SettingName(e.case_name, e.variant); }

std::string SpeedupText(const VariantEffect& e) {
  if (!e.timed) return "-";
  return FormatRatio(e.time.speedup) + " [" + FormatRatio(e.time.low) + ", " +
         FormatRatio(e.time.high) + "]";
}

std::string MemoryText(const VariantEffect& e) {
  if (e.peak_bytes_baseline == 0 && e.peak_bytes_variant == 0) return "none seen";
  return FormatBytes(e.peak_bytes_baseline) + " -> " + FormatBytes(e.peak_bytes_variant) +
         (e.memory_change ? " (" + FormatPercent(*e.memory_change) + ")" : "");
}

std::string OutcomeText(const TrickReport& t) {
  return results::Name(t.outcome) + (t.reason.empty() ? "" : ": " + t.reason);
}

std::string ToleranceText(const TrickReport& t) {
  if (t.tolerance.bitwise()) return "bitwise";
  return "rtol " + FormatFixed(t.tolerance.rtol, 6) + ", atol " + FormatFixed(t.tolerance.atol, 6);
}

// "yes" when every optimized variant matched its baseline within the tolerance.
std::string EquivalenceText(const TrickReport& t) {
  int total = 0, equal = 0;
  for (const auto& v : t.variants) {
    if (v.baseline) continue;
    ++total;
    equal += v.check.equivalent;
  }
  if (total == 0) return "not checked";
  if (equal == total) return "yes";
  return "no (" + std::to_string(total - equal) + " of " + std::to_string(total) + " differ)";
}

std::string ReproText(const TrickReport& t) {
  if (!t.reproducibility) return "not recorded";
  const auto& r = *t.reproducibility;
  if (!r.checked) return "not checked" + (r.detail.empty() ? "" : ": " + r.detail);
  return std::string(r.bitwise_reproducible ? "yes" : "NO") +
         (r.fingerprint.empty() ? "" : " (" + r.fingerprint.substr(0, 16) + ")");
}

std::string Anchor(const TrickReport& t) { return "t-" + t.id; }

Tone GradeTone(Grade g) { return VerdictTone(VerdictOf(g)); }

// The claimed effects graded in a setting, one per line: "1.30-4.00x faster: smaller
// than claimed".
std::string ClaimedCell(const VariantEffect& e) {
  std::string out;
  for (const ClaimGrade& g : e.grades) out += (out.empty() ? "" : "; ") + g.claimed;
  return out.empty() ? "-" : out;
}

// `outcome_follows`: the caller appends the trick's outcome (skipped, invalid...), which
// is then the reason a setting without grades is not applicable.
Text GradesText(const VariantEffect& e, bool outcome_follows) {
  // Not applicable says so once, with its reason ("not applicable (not applicable here)"
  // said it twice and gave no reason).
  if (e.verdict == Verdict::kNotApplicable) {
    Text t{Plain(VerdictName(e.verdict), VerdictTone(e.verdict))};
    for (const ClaimGrade& g : e.grades) {
      if (g.grade == Grade::kNotApplicable && !g.detail.empty()) return t += Plain(": " + g.detail);
    }
    if (!outcome_follows && !e.verdict_detail.empty()) {  // its first clause says why
      t += Plain(": " + e.verdict_detail.substr(0, e.verdict_detail.find(';')));
    }
    return t;
  }
  Text t = VerdictText(e.verdict, e.time.imprecise);
  if (e.grades.size() < 2) {
    if (e.grades.size() == 1 && e.grades[0].grade != Grade::kHolds &&
        GradeName(e.grades[0].grade) != VerdictName(e.verdict)) {
      t += Text{Plain(" (" + GradeName(e.grades[0].grade) + ")", GradeTone(e.grades[0].grade))};
    }
    return t;
  }
  t += Text(" (");
  for (size_t i = 0; i < e.grades.size(); ++i) {
    const ClaimGrade& g = e.grades[i];
    const std::string metric =
        results::IsCounterMetric(g.expectation.metric) ? "counter" : g.expectation.metric;
    t += Text{Plain((i ? "; " : "") + metric + ": " + GradeName(g.grade), GradeTone(g.grade))};
  }
  t += Text(")");
  return t;
}

doc::Table ClaimsTable(const TrickReport& t) {
  doc::Table table("", {"setting", "claimed", "measured", "grade", "why"});
  for (const VariantEffect& e : t.effects) {
    for (const ClaimGrade& g : e.grades) {
      table.AddRow({Setting(e), g.claimed, g.measured, Cell(GradeName(g.grade), GradeTone(g.grade)),
                    g.detail});
    }
  }
  return table;
}

// One row per trick: its claim and its verdict, the answer a reader came for.
doc::Table VerdictTable(const Report& r) {
  doc::Table table("verdicts", {"trick", "claim", "verdict", "why"});
  for (const TrickReport& t : r.tricks) {
    table.AddRow({Text{doc::Link(t.id, Anchor(t))}, t.claim.empty() ? "-" : t.claim,
                  VerdictText(t.verdict, t.imprecise),
                  t.verdict_detail.empty() ? OutcomeText(t) : t.verdict_detail});
  }
  return table;
}

doc::Table SummaryTable(const Report& r) {
  doc::Table table("summary", {"trick", "setting", "claimed", "speedup [95% CI]", "p",
                               "peak memory", "verdict"});
  for (const TrickReport& t : r.tricks) {
    const Text trick{doc::Link(t.id, Anchor(t))};
    const Text outcome =
        t.outcome == results::RunOutcome::kOk ? Text() : Text(" (" + OutcomeText(t) + ")");
    if (t.effects.empty()) {
      Text verdict = VerdictText(t.verdict, false);
      verdict += Text(" (" + OutcomeText(t) + ")");
      table.AddRow({trick, "-", "-", "-", "-", "-", verdict});
      continue;
    }
    for (const VariantEffect& e : t.effects) {
      Text verdict = GradesText(e, t.outcome != results::RunOutcome::kOk);
      verdict += outcome;
      table.AddRow({trick, Setting(e) + " vs " + e.baseline, ClaimedCell(e), SpeedupText(e),
                    e.timed ? FormatP(e.time.p_value) : "-", MemoryText(e), verdict});
    }
  }
  return table;
}

doc::IntervalChart SpeedupChart(const Report& r) {
  doc::IntervalChart chart;
  chart.description = "speedups with 95% intervals; shaded: the range the claim states";
  chart.empty_text = "No timed comparison in this report.";
  for (const TrickReport& t : r.tricks) {
    for (const VariantEffect& e : t.effects) {
      if (!e.timed) continue;
      const std::string mark = e.time.imprecise ? std::string(" (") + kImpreciseMark + ")" : "";
      doc::IntervalChart::Row row{
          t.id + " " + Setting(e) + mark,
          e.time.speedup,
          e.time.low,
          e.time.high,
          e.time.imprecise ? Tone::kMuted : VerdictTone(e.verdict),
          e.time.imprecise,
          SpeedupText(e) + ", p=" + FormatP(e.time.p_value) + ", " + VerdictName(e.verdict) + mark,
          {}};
      for (const ClaimGrade& g : e.grades) {  // claims for another device are not drawn
        if (g.expectation.metric != "time" || g.grade == Grade::kNotApplicable) continue;
        const SpeedupRange claimed = ClaimedSpeedups(g.expectation);
        row.claimed.push_back({claimed.low, claimed.high, g.claimed});
      }
      chart.rows.push_back(std::move(row));
    }
  }
  return chart;
}

doc::ChangeChart MemoryChart(const Report& r) {
  doc::ChangeChart chart;
  chart.description = "peak memory change";
  chart.empty_text = "No memory measurement in this report.";
  for (const TrickReport& t : r.tricks) {
    for (const VariantEffect& e : t.effects) {
      if (!e.memory_change) continue;
      const double f = *e.memory_change;
      chart.rows.push_back({t.id + " " + Setting(e), f,
                            f < 0   ? Tone::kGood
                            : f > 0 ? Tone::kBad
                                    : Tone::kMuted,
                            MemoryText(e)});
    }
  }
  return chart;
}

doc::Table ReproducibilityTable(const Report& r) {
  doc::Table table("reproducibility", {"trick", "reproduced variant", "bitwise reproducible",
                                       "matches baseline", "tolerance"});
  for (const TrickReport& t : r.tricks) {
    const bool reproducible =
        t.reproducibility && t.reproducibility->checked && t.reproducibility->bitwise_reproducible;
    const bool irreproducible = t.reproducibility && t.reproducibility->checked && !reproducible;
    table.AddRow({t.id, t.reproduced_variant.empty() ? "-" : t.reproduced_variant,
                  Cell(ReproText(t), irreproducible ? Tone::kBad : Tone::kPlain),
                  EquivalenceText(t),
                  t.category.empty() && t.variants.empty() ? "-" : ToleranceText(t)});
  }
  return table;
}

doc::Table EnvironmentTable(const Report& r) {
  doc::Table table("environment", {"key", "value"});
  for (const auto& [k, v] : r.environment) table.AddRow({k, v});
  return table;
}

// What disturbed a variant, when it is large enough to matter: the OS (faults,
// preemptions) and, on a CUDA device, a host too slow to keep the device busy.
std::string InterferenceText(const Variant& v, bool cuda) {
  std::string out;
  if (cuda && v.host_ns_per_iteration >= kHostBoundShare * v.summary.median) {
    out = "host-bound: issuing took " + FormatNs(v.host_ns_per_iteration) + " of " +
          FormatNs(v.summary.median) + " device time/iteration";
  }
  if (v.faults_per_iteration >= kManyFaultsPerIteration) {
    out += (out.empty() ? "" : ", ") + FormatFixed(v.faults_per_iteration, 1) +
           " page faults/iteration";
  }
  if (v.switches_per_sample >= kManySwitchesPerSample) {
    out +=
        (out.empty() ? "" : ", ") + FormatFixed(v.switches_per_sample, 1) + " preemptions/sample";
  }
  return out.empty() ? "-" : out;
}

std::string ProcessMediansText(const Variant& v) {
  if (v.process_medians_ns.size() < 2) return "-";
  std::string out;
  for (double x : v.process_medians_ns) out += (out.empty() ? "" : " ") + FormatNs(x);
  return out;
}

doc::Table VariantTable(const TrickReport& t) {
  doc::Table table("", {"setting", "median", "IQR (/median)", "CV", "samples", "process medians",
                        "interference", "peak memory", "equivalent", "active"});
  for (const Variant& v : t.variants) {
    const std::string setting =
        SettingName(v.case_name, v.name) + (v.baseline ? " (baseline)" : "");
    const results::VariantCheck& check = v.check;
    const Cell equivalent = v.baseline ? Cell("-")
                            : check.equivalent
                                ? Cell("yes")
                                : Cell("NO: " + check.equivalence_detail, Tone::kBad);
    const Cell active =
        check.active ? Cell("yes") : Cell("NO: " + check.inactive_reason, Tone::kBad);
    if (v.samples_ns.empty()) {
      table.AddRow({setting, "-", "-", "-", "0", "-", "-", FormatBytes(check.peak_bytes),
                    equivalent, active});
      continue;
    }
    const std::string interference = InterferenceText(v, t.device.rfind("cuda", 0) == 0);
    const stats::Summary& s = v.summary;
    table.AddRow({setting, FormatNs(s.median),
                  FormatNs(s.iqr) + " (" + FormatPercent(s.relative_iqr, 1, false) + ")",
                  FormatPercent(s.cv, 1, false), std::to_string(v.samples_ns.size()),
                  ProcessMediansText(v),
                  Cell(interference, interference == "-" ? Tone::kPlain : Tone::kFlagged),
                  FormatBytes(check.peak_bytes), equivalent, active});
  }
  return table;
}

doc::Section TrickSection(const TrickReport& t) {
  doc::Section s;
  s.title = Text(t.id + ": ");
  s.title += VerdictText(t.verdict, t.imprecise);
  s.anchor = Anchor(t);
  if (!t.claim.empty()) {
    std::string judged;
    for (const auto& e : t.expectations) {
      judged += (judged.empty() ? "" : "; ") + ClaimedText(e) +
                (e.variant.empty() ? "" : " (" + e.variant + ")");
    }
    if (judged.empty()) judged = "nothing measurable (the claim is checked by reproducibility)";
    if (t.expectations_from_words) judged += " (read from the claim's words: no figures)";
    s.blocks.push_back(doc::Paragraph{"Claim: \"" + t.claim + "\" (" + t.category + "; " +
                                      t.source + "). Graded on: " + judged + "."});
  }
  s.blocks.push_back(
      doc::Paragraph{"Outcome: " + OutcomeText(t) + ". Verdict: " + t.verdict_detail + "."});
  if (!t.device.empty()) {
    // A trick skipped, invalid or only checked has no rounds: say so, not "0 rounds".
    const std::string design = t.rounds > 0 ? std::to_string(t.processes) + " process(es) x " +
                                                  std::to_string(t.rounds) + " paired rounds x " +
                                                  FormatFixed(t.min_time, 3) + " s"
                                            : "not timed";
    s.blocks.push_back(doc::Paragraph{"Device " + t.device + ", " + std::to_string(t.threads) +
                                      " threads, " + design + ", seed " + std::to_string(t.seed) +
                                      "."});
  }
  if (!t.process_notes.empty()) {
    doc::List notes;
    for (const auto& n : t.process_notes) notes.items.push_back(n);
    s.blocks.push_back(notes);
  }
  if (!t.variants.empty()) s.blocks.push_back(VariantTable(t));
  const doc::Table claims = ClaimsTable(t);
  if (!claims.rows.empty()) s.blocks.push_back(claims);
  if (!t.effects.empty()) {
    doc::List effects;
    for (const VariantEffect& e : t.effects) {
      Text item(Setting(e) + " vs " + e.baseline + ": ");
      item += VerdictText(e.verdict, e.time.imprecise);
      item += Plain(": " + e.verdict_detail + ".");
      effects.items.push_back(item);
    }
    s.blocks.push_back(effects);
  }
  if (t.reproducibility) {
    s.blocks.push_back(doc::Paragraph{
        "Reproducibility: " + ReproText(t) +
        (t.reproducibility->detail.empty() ? "" : ": " + t.reproducibility->detail)});
  }
  doc::Details samples{t.rounds > 0 ? "raw samples (one per round, processes in order)"
                                    : "raw samples (one per repetition)",
                       {}};
  for (const Variant& v : t.variants) {
    if (v.samples_ns.empty()) continue;
    std::string line = SettingName(v.case_name, v.name) + ":";
    for (double x : v.samples_ns) line += " " + FormatNs(x);
    samples.lines.push_back(line);
  }
  if (!samples.lines.empty()) s.blocks.push_back(samples);
  return s;
}

}  // namespace

doc::Document ReportDocument(const Report& r) {
  doc::Document d;
  d.title = "trickbench report: " + r.source;
  // The answer first: what holds, drawn against what was claimed; then every setting;
  // how to read the numbers after them.
  d.blocks.push_back(doc::Paragraph{RunLine(r)});
  if (!r.environment_notes.empty()) {
    doc::Note note{{doc::Strong("Warning:"),
                    Plain(" the processes of a trick did not all run in the same environment:")},
                   {}};
    for (const auto& n : r.environment_notes) note.items.push_back(n);
    d.blocks.push_back(note);
  }
  d.blocks.push_back(doc::Paragraph{SummaryLine(r)});
  if (r.phase_seconds) d.blocks.push_back(doc::Paragraph{TimeSplitLine(r)});
  if (r.budget) d.blocks.push_back(doc::Paragraph{BudgetLine(*r.budget)});
  d.sections.push_back({"Verdicts", "", {VerdictTable(r)}, {}});
  d.sections.push_back({"Speedups (95% intervals, log scale); shaded: what the claim states",
                        "",
                        {SpeedupChart(r)},
                        {}});
  d.sections.push_back({"Every setting", "", {SummaryTable(r)}, {}});
  d.sections.push_back({"Method", "", {doc::Paragraph{MethodLine(r)}}, {}});
  d.sections.push_back({"Peak memory change", "", {MemoryChart(r)}, {}});
  d.sections.push_back({"Reproducibility and equivalence", "", {ReproducibilityTable(r)}, {}});
  d.sections.push_back({"Environment", "", {EnvironmentTable(r)}, {}});
  doc::Section details{"Details", "", {}, {}};
  for (const TrickReport& t : r.tricks) details.sections.push_back(TrickSection(t));
  d.sections.push_back(std::move(details));
  return d;
}

bool WriteReportFiles(const Report& report, const std::string& dir, std::vector<std::string>* paths,
                      std::string* error) {
  const doc::Document d = ReportDocument(report);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"report.json", ReportToJson(report).dump(2) + "\n"},
      {"report.md", doc::PrintMarkdown(d)},
      {"report.html", doc::PrintHtml(d)}};
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    if (!WriteFileAtomically(path, text, error)) return false;
    if (paths) paths->push_back(path);
  }
  return true;
}

}  // namespace reports
}  // namespace trickbench
