#include "reports/compare_render.h"

#include <algorithm>
#include <cmath>

#include "reports/analyze.h"
#include "reports/format.h"

namespace trickbench {
namespace reports {

namespace {

using doc::Code;
using doc::Plain;
using doc::Text;
using doc::Tone;

Tone OutcomeTone(stats::ChangeOutcome o) {
  switch (o) {
    case stats::ChangeOutcome::kFaster:
      return Tone::kGood;
    case stats::ChangeOutcome::kSlower:
      return Tone::kBad;
    case stats::ChangeOutcome::kUnchanged:
      return Tone::kPlain;
    case stats::ChangeOutcome::kUnknown:
      return Tone::kUncertain;
  }
  return Tone::kPlain;
}

std::string ChangeText(const stats::Change& c) {
  return FormatPercent(c.ratio - 1) + " [" + FormatPercent(c.low - 1) + ", " +
         FormatPercent(c.high - 1) + "]";
}

std::string SpeedupText(const stats::Speedup& s) {
  return FormatRatio(s.speedup) + " [" + FormatRatio(s.low) + ", " + FormatRatio(s.high) + "]";
}

std::string OutcomeText(const SpeedupChange& s) {
  std::string out = stats::ChangeOutcomeName(s.change.outcome);
  if (!s.unlike_iterations.empty()) {
    return out +
           (s.change.outcome == stats::ChangeOutcome::kUnknown ? ": timed" : ", though timed") +
           " with other iterations per sample (" + s.unlike_iterations +
           "); see the note above the table";
  }
  if (s.change.outcome != stats::ChangeOutcome::kUnknown) return out;
  if (s.beyond_processes) {
    return out + ": no number of processes would settle it: the session part alone (sd " +
           FormatPercent(*s.session_sd, 1, false) + ") is wider than the margin allows";
  }
  if (s.processes_to_settle) {
    out += ": about " + std::to_string(*s.processes_to_settle) + " processes x " +
           std::to_string(*s.rounds_to_settle) + " rounds on each side would settle it";
    if (s.seconds_to_settle) {
      out += " (about " + FormatDuration(*s.seconds_to_settle) + " for both, at these runs' pace)";
    }
    return out;
  }
  return out + ": more than 1000 processes would be needed";
}

// Alpha as it was given: 0.05, 0.025, 0.001 (never rounded to two places).
std::string AlphaText(double alpha) {
  std::string s = FormatFixed(alpha, 6);
  while (s.size() > 4 && s.back() == '0') s.pop_back();
  return s;
}

std::string RuleText(const stats::DecisionRule& r) {
  return "Holm-corrected p < " + AlphaText(r.alpha) + " and beyond ±" +
         FormatPercent(r.min_effect, 1, false) + "; unchanged = the " +
         FormatPercent(1 - 2 * r.alpha, 0, false) + " interval inside ±" +
         FormatPercent(r.min_effect, 1, false) + " (two one-sided tests at " + AlphaText(r.alpha) +
         ")";
}

std::string Counts(const std::vector<stats::Change>& changes) {
  int n[4] = {0, 0, 0, 0};
  for (const auto& c : changes) ++n[static_cast<int>(c.outcome)];
  return std::to_string(n[0]) + " faster, " + std::to_string(n[1]) + " slower, " +
         std::to_string(n[2]) + " unchanged, " + std::to_string(n[3]) + " unknown";
}

std::string SummaryLine(const ReportDiff& c) {
  std::vector<stats::Change> speedups;
  for (const auto& s : c.speedups) speedups.push_back(s.change);
  std::string line = "Speedups over the baseline, " + std::to_string(speedups.size()) +
                     " settings: " + Counts(speedups) + " (" + RuleText(c.rule) + ").";
  if (c.geomean_ratio) {
    line += " Geometric mean of new/old median time over " + std::to_string(c.times.size()) +
            " timed variants: " + FormatFixed(*c.geomean_ratio, 3) + " (" +
            FormatPercent(*c.geomean_ratio - 1) + ")";
    line += c.same_session ? "." : ", not tested.";
  }
  return line;
}

Text RegressionLine(const ReportDiff& c, double fail_percent) {
  const int n = Regressions(c, fail_percent);
  if (n == 0) {
    return {Plain("CI check: no regression beyond " + FormatFixed(fail_percent, 1) +
                      "% (outcome slower, " + RuleText(c.rule) + ").",
                  Tone::kGood)};
  }
  return {Plain("CI check FAILED: " + std::to_string(n) + " regression(s) beyond " +
                    FormatFixed(fail_percent, 1) + "% (outcome slower, " + RuleText(c.rule) + ").",
                Tone::kBad)};
}

Text EnvironmentItem(const EnvDifference& e) {
  return {Plain(e.key + ": "), Code(e.old_value), Plain(" -> "), Code(e.new_value)};
}

// With a noise study: which settings had its session part added, and how large it was.
std::string SessionPartsLine(const ReportDiff& c) {
  int with_part = 0;
  for (const auto& s : c.speedups) with_part += s.session_sd.has_value();
  return "Session parts from " + c.noise_source +
         " (a noise study: what all processes of one run "
         "share) added to both sides of " +
         std::to_string(with_part) + " of " + std::to_string(c.speedups.size()) +
         " settings before the test; the others, which the study did not measure, are compared "
         "as measured. A study from another machine or load says nothing of these runs.";
}

// Which settings were read at one machine speed, what that means for the figures, and
// why the others were not: a user who sees "as measured" needs the reason to fix it
// (an old report, too few processes), so each distinct reason is given with its count
// and, where it is the reason for a few settings only, their names.
std::string SpeedLine(const ReportDiff& c) {
  int at_speed = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;  // first-seen order
  for (const auto& s : c.speedups) {
    if (s.reference_probe_ns) {
      ++at_speed;
      continue;
    }
    auto it = std::find_if(reasons.begin(), reasons.end(),
                           [&](const auto& r) { return r.first == s.as_measured_because; });
    if (it == reasons.end()) it = reasons.insert(reasons.end(), {s.as_measured_because, {}});
    it->second.push_back(s.trick + " " + SettingName(s.case_name, s.variant));
  }
  std::string out =
      std::to_string(at_speed) + " of " + std::to_string(c.speedups.size()) +
      " settings were read at one machine speed: both runs' processes regressed, with one "
      "slope, on the speed probe timed beside every sample, and the new run read at the "
      "old run's mean probe time (column \"read at\"), so what the machine's speed spells "
      "do to a speedup is out of the test. The old run's speedups here are its mean over "
      "processes, the new run's are at the old run's speed, and both may differ a little "
      "from each report's.";
  if (reasons.empty()) return out;
  out += " As measured:";
  for (size_t i = 0; i < reasons.size(); ++i) {
    const auto& [why, settings] = reasons[i];
    out += (i ? "; " : " ") + std::to_string(settings.size()) + " because " + why;
    if (settings.size() <= 3) {
      std::string names;
      for (const std::string& n : settings) names += (names.empty() ? "" : ", ") + n;
      out += " (" + names + ")";
    }
  }
  return out + ".";
}

// The settings the runs timed with other iterations per sample, and the rerun that
// compares them like for like (like_for_like.h); "" when there are none.
std::string UnlikeLine(const ReportDiff& c) {
  std::vector<std::string> names;
  for (const auto& s : c.speedups) {
    if (!s.unlike_iterations.empty())
      names.push_back(s.trick + " " + SettingName(s.case_name, s.variant));
  }
  if (names.empty()) return "";
  std::string out = std::to_string(names.size()) +
                    " setting(s) were timed with other iterations per sample in the two runs, "
                    "so none of them is called faster or slower (unknown instead; unchanged "
                    "stands): for some workloads the time per iteration depends on how many "
                    "run back to back, and a real slowdown changes the calibrated count too. ";
  // In one A/B session the build that ran second already timed the other's counts where
  // it could (run_all --ab): what still differs is a trick whose variants or cases differ
  // between the builds, or whose first process 1 did not time, and no rerun aligns those.
  out += c.same_session
             ? "In this A/B session the build that ran second timed the other build's counts "
               "wherever it could; these differ because the trick's variants or cases differ "
               "between the builds, or its other process 1 did not time, so no rerun compares "
               "them like for like ("
             : "To compare them like for like, run the new build with the old run's counts: "
               "bazel run //benches:run_all -- --iterations_from=<the old run's folder> (";
  for (size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 5) out += ", and " + std::to_string(names.size() - 5) + " more";
  return out + ").";
}

doc::Table SpeedupTable(const ReportDiff& c) {
  const bool parts = !c.noise_source.empty();
  std::vector<std::string> columns = {"trick", "setting", "old speedup [95% CI]",
                                      "new speedup [95% CI]", "read at"};
  if (parts) columns.push_back("session sd");
  for (const char* h : {"new/old [95% CI]", "p (Holm)", "outcome"}) columns.push_back(h);
  doc::Table table("speedups", columns);
  for (const auto& s : c.speedups) {
    std::vector<doc::Cell> row = {
        s.trick, SettingName(s.case_name, s.variant), SpeedupText(s.old_side),
        SpeedupText(s.new_side),
        s.reference_probe_ns ? "probe " + FormatNs(*s.reference_probe_ns) : "as measured"};
    if (parts) row.push_back(s.session_sd ? FormatPercent(*s.session_sd, 1, false) : "-");
    row.push_back(ChangeText(s.change));
    row.push_back(FormatP(s.change.p_adjusted));
    row.push_back(doc::Cell(OutcomeText(s), OutcomeTone(s.change.outcome)));
    table.AddRow(row);
  }
  return table;
}

doc::Table TimesTable(const ReportDiff& c) {
  if (c.same_session) {
    doc::Table table("times", {"trick", "setting", "old median", "new median", "pairs",
                               "old/new time [95% CI]", "p (Holm)", "outcome"});
    for (const auto& b : c.times) {
      const std::string setting =
          SettingName(b.case_name, b.variant) + (b.baseline ? " (baseline)" : "");
      if (!b.change) {
        table.AddRow({b.trick, setting, FormatNs(b.old_median), FormatNs(b.new_median),
                      std::to_string(b.pairs), "-", "-", "not tested (fewer than 2 pairs)"});
        continue;
      }
      table.AddRow(
          {b.trick, setting, FormatNs(b.old_median), FormatNs(b.new_median),
           std::to_string(b.pairs), ChangeText(*b.change), FormatP(b.change->p_adjusted),
           doc::Cell(stats::ChangeOutcomeName(b.change->outcome), OutcomeTone(b.change->outcome))});
    }
    return table;
  }
  doc::Table table("times", {"trick", "setting", "old median", "new median", "new/old"});
  for (const auto& b : c.times) {
    table.AddRow({b.trick, SettingName(b.case_name, b.variant) + (b.baseline ? " (baseline)" : ""),
                  FormatNs(b.old_median), FormatNs(b.new_median),
                  FormatPercent(b.new_median / b.old_median - 1)});
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
  if (!c.machine.empty()) {
    doc::Note machine{{doc::Strong("Warning: the machine's state differed between the runs:")}, {}};
    for (const auto& m : c.machine) machine.items.push_back(m);
    d.blocks.push_back(machine);
  }
  d.blocks.push_back(doc::Paragraph{SummaryLine(c)});
  if (!c.speedups.empty()) d.blocks.push_back(doc::Paragraph{SpeedLine(c)});
  if (const std::string unlike = UnlikeLine(c); !unlike.empty()) {
    d.blocks.push_back(doc::Paragraph{unlike});
  }
  if (!c.noise_source.empty()) d.blocks.push_back(doc::Paragraph{SessionPartsLine(c)});
  if (c.one_process > 0) {
    d.blocks.push_back(doc::Paragraph{
        {doc::Strong("Note:"),
         Plain(" " + std::to_string(c.one_process) +
               " setting(s) were measured in one process on a side: their intervals leave out "
               "the variation between processes, so they raise false alarms more often than "
               "alpha; run more processes (run_all --processes) to trust them.")}});
  }
  if (fail_percent) d.blocks.push_back(doc::Paragraph{RegressionLine(c, *fail_percent)});
  d.blocks.push_back(SpeedupTable(c));
  if (!c.times.empty()) {
    const std::string intro =
        c.same_session
            ? "One A/B session: per timed variant, process k of the old build paired with process "
              "k "
              "of the new one (log ratio of their medians), a t interval over the pairs, " +
                  RuleText(c.rule) + "."
            : "Shown, not tested: " + c.times_note + ".";
    d.sections.push_back({"Absolute times", "", {doc::Paragraph{intro}, TimesTable(c)}, {}});
  }
  if (!c.only_old.empty() || !c.only_new.empty() || !c.not_compared.empty()) {
    doc::List list;
    for (const auto& id : c.only_old) list.items.push_back(id + ": only in old");
    for (const auto& id : c.only_new) list.items.push_back(id + ": only in new");
    for (const auto& s : c.not_compared) list.items.push_back(s + " (no timings on both sides)");
    d.sections.push_back({"Not compared", "", {list}, {}});
  }
  if (!other.items.empty())
    d.sections.push_back({"Other environment differences", "", {other}, {}});
  return d;
}

}  // namespace reports
}  // namespace trickbench
