#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "reports/analyze.h"
#include "reports/format.h"

namespace trickbench {
namespace reports {

const std::vector<std::string>& IncomparableEnvironmentKeys() {
  static const std::vector<std::string> keys = {
      "device",        "device_name",   "torch_version", "libtorch_build", "cuda_version",
      "cudnn_version", "intra_op_threads", "inter_op_threads", "blas", "blas_library",
      "determinism"};
  return keys;
}

namespace {

// Thresholds of a material machine-state difference (SCHEMA.md section 5).
constexpr double kLoadPerCoreDifference = 0.5;
constexpr double kStealFraction = 0.01;
constexpr double kSwitchRateFactor = 2;
constexpr double kSwitchRateFloor = 10;  // preemptions per second below which none matter

double Cores(const Report& r) {
  const auto it = r.environment.find("cpu_cores");
  if (it == r.environment.end()) return 1;
  try {
    return std::max(1.0, std::stod(it->second));
  } catch (...) {
    return 1;
  }
}

// The run's mean 1-minute load, -1 when unknown.
double Load(const results::MachineState& m) {
  if (m.load_start >= 0 && m.load_end >= 0) return (m.load_start + m.load_end) / 2;
  return std::max(m.load_start, m.load_end);
}

std::vector<std::string> MachineDifferences(const Report& o, const Report& n) {
  std::vector<std::string> out;
  const double oc = Cores(o), nc = Cores(n);
  const double ol = Load(o.machine), nl = Load(n.machine);
  if (ol >= 0 && nl >= 0 && std::fabs(ol / oc - nl / nc) > kLoadPerCoreDifference) {
    out.push_back("load: old " + FormatFixed(ol, 2) + " (" + FormatFixed(ol / oc, 2) +
                  " per core), new " + FormatFixed(nl, 2) + " (" + FormatFixed(nl / nc, 2) +
                  " per core): one machine was busier");
  }
  const auto steal = [](const Report& r, double cores) {
    if (r.machine.steal_seconds < 0 || r.run_seconds <= 0) return -1.0;
    return r.machine.steal_seconds / (r.run_seconds * cores);
  };
  const double os = steal(o, oc), ns = steal(n, nc);
  if (os >= 0 && ns >= 0 && (os > kStealFraction) != (ns > kStealFraction)) {
    out.push_back("steal: old " + FormatPercent(os, 1, false) + " of the run, new " +
                  FormatPercent(ns, 1, false) + ": the hypervisor took CPU time in one run only");
  }
  const auto rate = [](const Report& r) {
    if (r.machine.involuntary_switches < 0 || r.run_seconds <= 0) return -1.0;
    return static_cast<double>(r.machine.involuntary_switches) / r.run_seconds;
  };
  const double orate = rate(o), nrate = rate(n);
  if (orate >= 0 && nrate >= 0 && std::max(orate, nrate) > kSwitchRateFloor &&
      std::max(orate, nrate) > kSwitchRateFactor * std::min(orate, nrate)) {
    out.push_back("preemptions: old " + FormatFixed(orate, 1) + "/s, new " + FormatFixed(nrate, 1) +
                  "/s of the trick processes");
  }
  return out;
}

// What both sides would need for the change's interval to fit inside +-min_effect
// around a null change: each side's half-width about min_effect / 2.
void AdviseToSettle(SpeedupChange* c, const VariantEffect& o, const VariantEffect& n,
                    const stats::DecisionRule& rule) {
  if (o.method == kRepetitionsMethod || n.method == kRepetitionsMethod) return;
  int processes = 0, rounds = 0;
  for (const VariantEffect* e : {&o, &n}) {
    const stats::Settle s = stats::ToSettle(SpeedupOf(*e), rule.min_effect / 2, 1 - rule.alpha);
    if (!s.reachable) return;
    processes = std::max(processes, s.processes);
    rounds = std::max(rounds, s.rounds_per_process);
  }
  c->processes_to_settle = processes;
  c->rounds_to_settle = rounds;
}

}  // namespace

std::string WhyNotOneSession(const Report& o, const Report& n) {
  if (!o.ab || !n.ab) {
    return "the reports come from two sessions, whose machine drift (often 20-40 %) no test "
           "over one session sees; run both builds in one session with run_all --ab=OLD,NEW";
  }
  if (o.ab->seed != n.ab->seed) {
    return "the reports come from two different A/B sessions (seeds " + std::to_string(o.ab->seed) +
           " and " + std::to_string(n.ab->seed) + ")";
  }
  if (o.ab->role != results::kAbOld || n.ab->role != results::kAbNew) {
    return "the A/B roles are " + o.ab->role + " and " + n.ab->role +
           "; give the session's old/report.json first and new/report.json second";
  }
  return "";
}

ReportDiff CompareReports(const Report& o, const Report& n, const stats::DecisionRule& rule) {
  ReportDiff c;
  c.old_source = o.source;
  c.new_source = n.source;
  c.rule = rule;
  c.times_note = WhyNotOneSession(o, n);
  c.same_session = c.times_note.empty();
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
  std::vector<stats::Change> speedup_changes, time_changes;
  std::vector<size_t> tested_times;  // indexes into c.times of time_changes
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
        TimeChange b;
        b.trick = nt.id;
        b.case_name = nv.case_name;
        b.variant = nv.name;
        b.baseline = nv.baseline;
        b.old_median = ov.median;
        b.new_median = nv.median;
        log_sum += std::log(nv.median / ov.median);
        b.pairs = static_cast<int>(std::min(ov.process_medians_ns.size(), nv.process_medians_ns.size()));
        if (c.same_session && b.pairs >= 2) {
          std::vector<double> pairs;
          for (int k = 0; k < b.pairs; ++k) {
            pairs.push_back(std::log(ov.process_medians_ns[k] / nv.process_medians_ns[k]));
          }
          b.change = stats::ComparePaired(pairs, 1 - rule.alpha);
          time_changes.push_back(*b.change);
          tested_times.push_back(c.times.size());
        }
        c.times.push_back(b);
      }
    }
    for (const VariantEffect& ne : nt.effects) {
      for (const VariantEffect& oe : ot.effects) {
        if (oe.case_name != ne.case_name || oe.variant != ne.variant || !oe.timed || !ne.timed) {
          continue;
        }
        SpeedupChange s;
        s.trick = nt.id;
        s.case_name = ne.case_name;
        s.variant = ne.variant;
        s.old_speedup = oe.speedup, s.old_low = oe.ci_low, s.old_high = oe.ci_high;
        s.new_speedup = ne.speedup, s.new_low = ne.ci_low, s.new_high = ne.ci_high;
        s.old_method = oe.method, s.new_method = ne.method;
        s.old_verdict = VerdictName(oe.verdict) + (oe.imprecise ? " (imprecise)" : "");
        s.new_verdict = VerdictName(ne.verdict) + (ne.imprecise ? " (imprecise)" : "");
        s.change = stats::CompareSpeedups(SpeedupOf(oe), SpeedupOf(ne), 1 - rule.alpha);
        stats::Speedup both;
        both.log_se = std::hypot(oe.log_se, ne.log_se);
        both.dof = std::min(oe.dof, ne.dof);
        s.minimum_detectable_effect = stats::MinimumDetectableEffect(both, rule.alpha);
        speedup_changes.push_back(s.change);
        c.one_process += oe.method == "rounds" || ne.method == "rounds";
        c.speedups.push_back(s);
      }
    }
  }
  // Holm over every setting compared, then over every benchmark tested: one family each.
  stats::Decide(&speedup_changes, rule);
  for (size_t i = 0; i < c.speedups.size(); ++i) {
    c.speedups[i].change = speedup_changes[i];
  }
  for (auto& s : c.speedups) {
    if (s.change.outcome != stats::ChangeOutcome::kUnknown) continue;
    for (const auto& nt : n.tricks) {
      const auto ot = old_by_id.find(nt.id);
      if (nt.id != s.trick || ot == old_by_id.end()) continue;
      const auto find = [&](const Trick& t) -> const VariantEffect* {
        for (const auto& e : t.effects) {
          if (e.case_name == s.case_name && e.variant == s.variant) return &e;
        }
        return nullptr;
      };
      if (const auto *oe = find(*ot->second), *ne = find(nt); oe && ne) AdviseToSettle(&s, *oe, *ne, rule);
    }
  }
  stats::Decide(&time_changes, rule);
  for (size_t i = 0; i < tested_times.size(); ++i) c.times[tested_times[i]].change = time_changes[i];
  if (c.same_session && tested_times.empty() && !c.times.empty()) {
    c.times_note = "one A/B session, but fewer than two processes per build: nothing to pair";
  }
  if (!c.times.empty()) c.geomean_ratio = std::exp(log_sum / static_cast<double>(c.times.size()));
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
  c.machine = MachineDifferences(o, n);
  return c;
}

namespace {

// A "slower" change's slowdown: how much more time (or less speedup) as a fraction.
double Slowdown(const stats::Change& c) { return 1 / c.ratio - 1; }

bool IsRegression(const stats::Change& c, double percent) {
  return c.outcome == stats::ChangeOutcome::kSlower && Slowdown(c) > percent / 100;
}

}  // namespace

int Regressions(const ReportDiff& c, double percent) {
  int n = 0;
  for (const auto& s : c.speedups) n += IsRegression(s.change, percent);
  for (const auto& t : c.times) n += t.change && IsRegression(*t.change, percent);
  return n;
}

namespace {

using doc::Code;
using doc::Plain;
using doc::Text;
using doc::Tone;

Tone OutcomeTone(stats::ChangeOutcome o) {
  switch (o) {
    case stats::ChangeOutcome::kFaster: return Tone::kGood;
    case stats::ChangeOutcome::kSlower: return Tone::kBad;
    case stats::ChangeOutcome::kUnchanged: return Tone::kPlain;
    case stats::ChangeOutcome::kUnknown: return Tone::kUncertain;
  }
  return Tone::kPlain;
}

std::string ChangeText(const stats::Change& c) {
  return FormatPercent(c.ratio - 1) + " [" + FormatPercent(c.low - 1) + ", " +
         FormatPercent(c.high - 1) + "]";
}

std::string SpeedupText(double s, double lo, double hi, const std::string& method) {
  return FormatRatio(s) + " [" + FormatRatio(lo) + ", " + FormatRatio(hi) + "]" +
         (method == kRepetitionsMethod ? " (schema 1)" : "");
}

std::string OutcomeText(const SpeedupChange& s) {
  std::string out = stats::ChangeOutcomeName(s.change.outcome);
  if (s.change.outcome != stats::ChangeOutcome::kUnknown) return out;
  if (s.processes_to_settle) {
    return out + ": about " + std::to_string(*s.processes_to_settle) + " processes x " +
           std::to_string(*s.rounds_to_settle) + " rounds on each side would settle it";
  }
  if (s.old_method == kRepetitionsMethod || s.new_method == kRepetitionsMethod) {
    return out + ": re-run with the current trick binaries (rounds over processes) to settle it";
  }
  return out + ": more than 1000 processes would be needed";
}

std::string RuleText(const stats::DecisionRule& r) {
  return "Holm-corrected p < " + FormatFixed(r.alpha, 2) + " and beyond ±" +
         FormatPercent(r.min_effect, 1, false) + "; unchanged = interval inside ±" +
         FormatPercent(r.min_effect, 1, false);
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
            " benchmarks: " + FormatFixed(*c.geomean_ratio, 3) + " (" +
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

doc::Table SpeedupTable(const ReportDiff& c) {
  doc::Table table("speedups", {"trick", "setting", "old speedup [95% CI]", "new speedup [95% CI]",
                                "new/old [95% CI]", "p (Holm)", "outcome"});
  for (const auto& s : c.speedups) {
    table.AddRow({s.trick, SettingName(s.case_name, s.variant),
                  SpeedupText(s.old_speedup, s.old_low, s.old_high, s.old_method),
                  SpeedupText(s.new_speedup, s.new_low, s.new_high, s.new_method),
                  ChangeText(s.change), FormatP(s.change.p_adjusted),
                  doc::Cell(OutcomeText(s), OutcomeTone(s.change.outcome))});
  }
  return table;
}

doc::Table TimesTable(const ReportDiff& c) {
  if (c.same_session) {
    doc::Table table("times", {"trick", "setting", "old median", "new median", "pairs",
                               "old/new time [95% CI]", "p (Holm)", "outcome"});
    for (const auto& b : c.times) {
      const std::string setting = SettingName(b.case_name, b.variant) + (b.baseline ? " (baseline)" : "");
      if (!b.change) {
        table.AddRow({b.trick, setting, FormatNs(b.old_median), FormatNs(b.new_median),
                      std::to_string(b.pairs), "-", "-", "not tested (fewer than 2 pairs)"});
        continue;
      }
      table.AddRow({b.trick, setting, FormatNs(b.old_median), FormatNs(b.new_median),
                    std::to_string(b.pairs), ChangeText(*b.change), FormatP(b.change->p_adjusted),
                    doc::Cell(stats::ChangeOutcomeName(b.change->outcome),
                              OutcomeTone(b.change->outcome))});
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
            ? "One A/B session: per benchmark, process k of the old build paired with process k "
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
  if (!other.items.empty()) d.sections.push_back({"Other environment differences", "", {other}, {}});
  return d;
}

}  // namespace reports
}  // namespace trickbench
