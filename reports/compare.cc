#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "reports/analyze.h"
#include "reports/format.h"
#include "reports/like_for_like.h"
#include "reports/speed_reference.h"
#include "stats/distributions.h"
#include "stats/session_part.h"

namespace trickbench {
namespace reports {

const std::vector<std::string>& IncomparableEnvironmentKeys() {
  static const std::vector<std::string> keys = {
      "device",       "device_name",   "torch_version",    "libtorch_build",
      "cuda_version", "cudnn_version", "intra_op_threads", "inter_op_threads",
      "blas",         "blas_library",  "determinism",      "cpu_allocator"};
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
// around a null change: each side's half-width about min_effect / 2. A session part
// takes its share of that half-width first, and no number of processes removes it: a
// part whose own half-width is beyond it leaves the setting out of reach.
void AdviseToSettle(SpeedupChange* c, const TrickReport& ot, const TrickReport& nt,
                    const stats::DecisionRule& rule) {
  double target = rule.min_effect / 2;
  if (c->session_sd) {
    const double side = std::log1p(target);
    const double part = stats::NormalQuantile(1 - rule.alpha / 2) * *c->session_sd;
    if (part >= side) {
      c->beyond_processes = true;
      return;
    }
    target = std::expm1(std::sqrt(side * side - part * part));
  }
  int processes = 0, rounds = 0;
  // The sides as tested: read at one speed, their spread is what the spells leave.
  for (const stats::Speedup* side : {&c->old_side, &c->new_side}) {
    const stats::Settle s = stats::ToSettle(*side, target, 1 - rule.alpha);
    if (!s.reachable) return;
    processes = std::max(processes, s.processes);
    rounds = std::max(rounds, s.rounds_per_process);
  }
  c->processes_to_settle = processes;
  c->rounds_to_settle = rounds;
  const auto old_side = SecondsAtThisPace(ot, c->case_name, processes, rounds);
  const auto new_side = SecondsAtThisPace(nt, c->case_name, processes, rounds);
  if (old_side && new_side) c->seconds_to_settle = *old_side + *new_side;
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

ReportDiff CompareReports(const Report& o, const Report& n, const stats::DecisionRule& rule,
                          const SessionParts* parts) {
  ReportDiff c;
  c.old_source = o.source;
  c.new_source = n.source;
  c.rule = rule;
  if (parts) c.noise_source = parts->source;
  c.times_note = WhyNotOneSession(o, n);
  c.same_session = c.times_note.empty();
  std::map<std::string, const TrickReport*> old_by_id, new_by_id;
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
    const TrickReport& ot = *it->second;
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
        b.old_median = ov.summary.median;
        b.new_median = nv.summary.median;
        log_sum += std::log(b.new_median / b.old_median);
        b.pairs =
            static_cast<int>(std::min(ov.process_medians_ns.size(), nv.process_medians_ns.size()));
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
        s.old_time = oe.time;
        s.new_time = ne.time;
        s.old_verdict = VerdictName(oe.verdict) + (oe.time.imprecise ? " (imprecise)" : "");
        s.new_verdict = VerdictName(ne.verdict) + (ne.time.imprecise ? " (imprecise)" : "");
        const ComparedSides sides = AtOneSpeed(ot, oe, nt, ne);
        s.old_side = sides.old_side;
        s.new_side = sides.new_side;
        s.reference_probe_ns = sides.reference_probe_ns;
        s.as_measured_because = sides.as_measured_because;
        s.unlike_iterations = UnlikeIterations(ot, oe, nt, ne);
        stats::Speedup old_side = s.old_side, new_side = s.new_side;
        if (const SessionPart* part =
                parts ? parts->Find(nt.id, ne.case_name, ne.variant) : nullptr) {
          s.session_sd = part->sd;
          old_side = stats::WithSessionPart(old_side, part->sd, part->sessions - 1, 1 - rule.alpha);
          new_side = stats::WithSessionPart(new_side, part->sd, part->sessions - 1, 1 - rule.alpha);
        }
        s.change = stats::CompareSpeedups(old_side, new_side, 1 - rule.alpha);
        stats::Speedup both;
        both.log_se = std::hypot(old_side.log_se, new_side.log_se);
        both.dof = std::min(old_side.dof, new_side.dof);
        s.minimum_detectable_effect = stats::MinimumDetectableEffect(both, rule.alpha);
        speedup_changes.push_back(s.change);
        c.one_process += oe.time.method == "rounds" || ne.time.method == "rounds";
        c.speedups.push_back(s);
      }
    }
  }
  // Holm over every setting compared, then over every timed variant tested: one family each.
  stats::Decide(&speedup_changes, rule);
  for (size_t i = 0; i < c.speedups.size(); ++i) {
    c.speedups[i].change = speedup_changes[i];
    // Holm counts them all the same: the family is every setting compared. Timed with
    // other counts, a change may be the count's (like_for_like.h); "unchanged" stands.
    const stats::ChangeOutcome o = c.speedups[i].change.outcome;
    if (!c.speedups[i].unlike_iterations.empty() &&
        (o == stats::ChangeOutcome::kFaster || o == stats::ChangeOutcome::kSlower)) {
      c.speedups[i].change.outcome = stats::ChangeOutcome::kUnknown;
    }
  }
  for (auto& s : c.speedups) {
    if (s.change.outcome != stats::ChangeOutcome::kUnknown || !s.unlike_iterations.empty()) {
      continue;  // no number of processes settles a count that differs
    }
    const auto ot = old_by_id.find(s.trick), nt = new_by_id.find(s.trick);
    if (ot != old_by_id.end() && nt != new_by_id.end())
      AdviseToSettle(&s, *ot->second, *nt->second, rule);
  }
  stats::Decide(&time_changes, rule);
  for (size_t i = 0; i < tested_times.size(); ++i)
    c.times[tested_times[i]].change = time_changes[i];
  if (c.same_session && tested_times.empty() && !c.times.empty()) {
    c.times_note = "one A/B session, but fewer than two processes per build: nothing to pair";
  }
  if (!c.times.empty()) c.geomean_ratio = std::exp(log_sum / static_cast<double>(c.times.size()));
  std::set<std::string> keys;
  for (const auto& [k, v] : o.environment) keys.insert(k);
  for (const auto& [k, v] : n.environment) keys.insert(k);
  const auto& bad = IncomparableEnvironmentKeys();
  for (const auto& k : keys) {
    if (results::KindOfContextKey(k) == results::ContextKind::kHost) continue;
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

}  // namespace reports
}  // namespace trickbench
