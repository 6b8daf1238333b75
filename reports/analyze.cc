#include "reports/analyze.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <limits>
#include <optional>
#include <vector>

#include "reports/format.h"
#include "reports/grade.h"
#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace reports {

namespace {

// The relative half-width at which the interval would either exclude 1x or fit inside
// the no-effect band, whichever comes first.
double SettlingHalfWidth(const VariantEffect& c) {
  const double centre = std::fabs((std::log(c.time.high) + std::log(c.time.low)) / 2);
  const double room = std::log1p(kNoEffectBand) - centre;
  return std::expm1(std::max(centre, room));
}

// What would settle an inconclusive time reading: processes x rounds (stats::ToSettle);
// unset when out of reach.
void EstimateToSettle(VariantEffect* c) {
  const double target = std::min(kImpreciseHalfWidth, SettlingHalfWidth(*c));
  const stats::Settle settle = stats::ToSettle(c->time, target, 1 - kAlpha);
  if (settle.reachable) {
    c->processes_to_settle = settle.processes;
    c->rounds_to_settle = settle.rounds_per_process;
  }
}

// "; about 12 processes x 8 rounds would settle it": the advice on an inconclusive
// reading, after EstimateToSettle.
std::string SettleText(const TrickReport& t, const VariantEffect& c) {
  if (c.processes_to_settle) {
    const int rounds = c.rounds_to_settle.value_or(0);
    std::string out = "; about " + std::to_string(*c.processes_to_settle) + " processes x " +
                      std::to_string(rounds) + " rounds would settle it";
    if (const auto s = SecondsAtThisPace(t, c.case_name, *c.processes_to_settle, rounds)) {
      out += " (about " + FormatDuration(*s) + " at this run's pace)";
    }
    return out;
  }
  return "; more than 1000 processes would be needed";
}

// The time's own reading, whatever the claim: material (beyond the +-5 % band) faster or
// slower, no effect, or not settled (then with what would settle it). Shown beside the
// grades, and on its own where no claim is about time.
std::string ReadTime(const TrickReport& tr, VariantEffect* c) {
  // One process cannot show the variation between processes, which dominates here.
  const std::string interval =
      IntervalText(*c) + (c->time.method == "rounds" ? " (one process: the interval leaves out "
                                                       "process-to-process variation)"
                                                     : "");
  // Material, not merely non-zero: a trick measured at 1.03x one run and 1.01x the next
  // is the same finding, "no effect beyond 5 %", where a test of "above 1x" alone
  // flipped between two runs of one build (7 of 54 settings here). An interval wholly
  // beyond the band decides even when it is wide.
  const double band_hi = 1 + kNoEffectBand, band_lo = 1 / (1 + kNoEffectBand);
  const std::string band = FormatPercent(kNoEffectBand, 0, false);
  const stats::Speedup& t = c->time;
  const std::string wide =
      t.imprecise ? " (imprecise: ±" + FormatPercent(t.half_width, 0, false) + ")" : "";
  if (t.low >= band_hi) return "faster beyond " + band + ": " + interval + wide;
  if (t.high <= band_lo) return "slower beyond " + band + ": " + interval + wide;
  if (t.low >= band_lo && t.high <= band_hi) {
    return "no effect beyond " + band + ": " + interval;
  }
  std::string reading;
  if (t.imprecise) {
    reading = "imprecise (±" + FormatPercent(t.half_width, 0, false) + ", above " +
              FormatPercent(kImpreciseHalfWidth, 0, false) + "): " + interval;
  } else if (c->significant && t.speedup >= band_hi) {
    return "faster: " + interval;
  } else if (c->significant && t.speedup <= band_lo) {
    return "slower: " + interval;
  } else if (t.speedup > band_lo && t.speedup < band_hi) {
    // A precise interval (half-width <= 10 %) around an estimate inside the band.
    return "no material effect: the estimate is within ±" + band + ": " + interval;
  } else {
    reading = "not settled: " + interval;
  }
  EstimateToSettle(c);
  return reading + SettleText(tr, *c);
}

bool HasRound(const std::vector<std::vector<double>>& log_ratios) {
  for (const auto& p : log_ratios) {
    if (!p.empty()) return true;
  }
  return false;
}

// The effect's time figures, from the rounds of every process.
void MeasureTime(const TrickReport& t, const Variant& v, VariantEffect* c) {
  stats::SpeedupOptions options;
  options.confidence = 1 - kAlpha;
  options.imprecise_half_width = kImpreciseHalfWidth;
  options.seed = Fnv1a(t.id + "\n" + v.case_name + "\n" + v.name, t.seed);
  c->time = stats::EstimateSpeedup(v.log_ratios, options);
  c->significant = c->time.p_value < kAlpha;
}

bool AppliesTo(const results::Expectation& e, const VariantEffect& c) {
  return (e.variant.empty() || e.variant == c.variant) &&
         (e.case_name.empty() || e.case_name == c.case_name);
}

// Every claimed effect on this setting, graded.
void GradeSetting(const TrickReport& t, const Variant& base, const Variant& v, VariantEffect* c) {
  c->grades.clear();
  for (const results::Expectation& e : t.expectations) {
    if (!AppliesTo(e, *c)) continue;
    ClaimGrade g;
    g.expectation = e;
    g.claimed = ClaimedText(e);
    // A claim for another device, or for none this experiment covers: not graded here.
    if (!e.device.empty() && t.device.rfind(e.device, 0) != 0) {
      g.grade = Grade::kNotApplicable;
      g.measured = "-";
      g.detail = e.device == "none"
                     ? "not covered by this experiment on any device: " + e.note
                     : "the claim is for " + e.device + " (" + e.note + "); this run is on " +
                           (t.device.empty() ? "an unknown device" : t.device);
      c->grades.push_back(std::move(g));
      continue;
    }
    std::string why;
    const std::optional<Measured> m = MeasureFor(e, t, base, v, *c, &why);
    if (!m) {
      g.grade = e.metric == "time" ? Grade::kNotSettled : Grade::kNotApplicable;
      g.measured = "-";
      g.detail = why;
    } else {
      g.measured = m->text;
      g.grade = GradeAgainst(e, *m, &g.detail);
      const bool advised = c->processes_to_settle.has_value();
      if (e.metric == "time" && VerdictOf(g.grade) == Verdict::kInconclusive && advised) {
        g.detail += SettleText(t, *c);
      }
    }
    c->grades.push_back(std::move(g));
  }
}

}  // namespace

std::optional<double> SecondsAtThisPace(const TrickReport& t, const std::string& case_name,
                                        int processes, int rounds) {
  if (t.process_seconds.empty() || t.min_time <= 0) return std::nullopt;
  int variants = 0;
  for (const Variant& v : t.variants) variants += v.case_name == case_name;
  // A process runs every case's rounds: its fixed part is its wall time less all of them
  // (each variant of each case one sample per round).
  const double timed_now =
      static_cast<double>(t.rounds) * static_cast<double>(t.variants.size()) * t.min_time;
  const double fixed = std::max(0.0, stats::Median(t.process_seconds) - timed_now);
  return processes * (fixed + rounds * variants * t.min_time);
}

void Analyze(TrickReport* t) {
  if (t->expectations.empty() && !t->claim.empty() &&
      (t->expectations_from_words || !t->has_expectations_field)) {
    t->expectations = ClaimFromWords(t->claim);
    t->expectations_from_words = true;
  }
  t->claims_time = t->claims_memory = false;
  for (const auto& e : t->expectations) {
    t->claims_time |= e.metric == "time";
    t->claims_memory |= e.metric == "memory" || e.metric == "host_memory";
  }
  t->imprecise = false;
  for (Variant& v : t->variants) v.summary = stats::Summarize(v.samples_ns);
  t->effects.clear();
  const Variant* base = nullptr;
  for (const Variant& v : t->variants) {
    if (v.baseline) {
      base = &v;
      continue;
    }
    if (!base || base->case_name != v.case_name) continue;
    VariantEffect c;
    c.case_name = v.case_name;
    c.variant = v.name;
    c.baseline = base->name;
    c.peak_bytes_baseline = base->check.peak_bytes;
    c.peak_bytes_variant = v.check.peak_bytes;
    if (base->check.peak_bytes > 0) {
      c.memory_change = static_cast<double>(v.check.peak_bytes - base->check.peak_bytes) /
                        static_cast<double>(base->check.peak_bytes);
    }
    c.timed = !base->samples_ns.empty() && !v.samples_ns.empty() && HasRound(v.log_ratios);
    if (t->outcome != results::RunOutcome::kOk) {
      c.verdict = Verdict::kNotApplicable;
      c.verdict_detail = results::Name(t->outcome) + (t->reason.empty() ? "" : ": " + t->reason);
    } else {
      std::string time_detail;
      if (c.timed) {
        MeasureTime(*t, v, &c);
        t->imprecise |= c.time.imprecise;
        time_detail = ReadTime(*t, &c);
      }
      GradeSetting(*t, *base, v, &c);
      std::vector<Verdict> verdicts;
      std::vector<std::string> parts;
      bool time_graded = false;
      for (const ClaimGrade& g : c.grades) {
        const Verdict x = VerdictOf(g.grade);
        if (x != Verdict::kNotApplicable) verdicts.push_back(x);
        time_graded |= g.expectation.metric == "time" && x != Verdict::kNotApplicable;
        parts.push_back(g.claimed + ": " + GradeName(g.grade) + " (" + g.detail +
                        (g.measured == "-" ? "" : "; " + g.measured) + ")");
      }
      if (c.grades.empty()) {
        parts.push_back(t->expectations.empty()
                            ? "the claim names no measurable effect (see reproducibility)"
                            : "the claim says nothing about this setting");
      }
      if (c.timed && !time_graded) parts.push_back("time (not judged here): " + time_detail);
      const auto has = [&](Verdict x) {
        return std::find(verdicts.begin(), verdicts.end(), x) != verdicts.end();
      };
      // Every claimed effect must hold for the setting to hold; some holding is "holds
      // in part" (16-bit inference: faster, but no less memory), never "holds".
      const bool all_hold =
          !verdicts.empty() && std::all_of(verdicts.begin(), verdicts.end(),
                                           [](Verdict x) { return x == Verdict::kHolds; });
      c.verdict = verdicts.empty()             ? Verdict::kNotApplicable
                  : all_hold                   ? Verdict::kHolds
                  : has(Verdict::kHolds)       ? Verdict::kPartly
                  : has(Verdict::kDoesNotHold) ? Verdict::kDoesNotHold
                                               : Verdict::kInconclusive;
      c.verdict_detail.clear();
      for (const auto& p : parts) c.verdict_detail += (c.verdict_detail.empty() ? "" : "; ") + p;
      if (c.verdict != Verdict::kInconclusive) {
        c.processes_to_settle.reset();
        c.rounds_to_settle.reset();
      }
    }
    t->effects.push_back(std::move(c));
  }
  if (t->outcome != results::RunOutcome::kOk || t->effects.empty()) {
    t->verdict = Verdict::kNotApplicable;
    t->verdict_detail = results::Name(t->outcome) + (t->reason.empty() ? "" : ": " + t->reason);
    return;
  }
  // Over every claimed effect graded in a setting it applies to, without picking the
  // best: "holds" only when every one holds. Counted per effect, not per setting, so a
  // setting where time holds and memory does not shows as both.
  struct Tally {
    int holds = 0, graded = 0;
  };
  std::map<std::string, Tally> by_metric;  // "time", "memory", a counter
  int holds = 0, inconclusive = 0, graded = 0;
  for (const auto& c : t->effects) {
    for (const ClaimGrade& g : c.grades) {
      const Verdict x = VerdictOf(g.grade);
      if (x == Verdict::kNotApplicable) continue;
      ++graded;
      holds += x == Verdict::kHolds;
      inconclusive += x == Verdict::kInconclusive;
      Tally& m = by_metric[g.expectation.metric];
      ++m.graded;
      m.holds += x == Verdict::kHolds;
    }
  }
  std::string breakdown;
  for (const auto& [metric, m] : by_metric) {
    breakdown += (breakdown.empty() ? "" : "; ") + metric + " " + std::to_string(m.holds) + " of " +
                 std::to_string(m.graded);
  }
  const std::string effects = graded == 1
                                  ? "the one claimed effect measured here"
                                  : std::to_string(graded) + " claimed effects measured here";
  if (graded == 0) {
    t->verdict = Verdict::kNotApplicable;
    t->verdict_detail = t->expectations.empty()
                            ? "the claim names no measurable effect"
                            : "no setting measured here is one the claim applies to";
  } else if (holds == graded) {
    t->verdict = Verdict::kHolds;
    t->verdict_detail = graded == 1 ? "holds for " + effects : "holds for all " + effects;
  } else if (holds > 0) {
    t->verdict = Verdict::kPartly;
    t->verdict_detail = "holds for " + std::to_string(holds) + " of " + effects;
  } else if (inconclusive > 0) {
    t->verdict = Verdict::kInconclusive;
    t->verdict_detail = std::to_string(inconclusive) + " of " + effects + " not settled" +
                        (t->imprecise ? " (imprecise)" : "");
  } else {
    t->verdict = Verdict::kDoesNotHold;
    t->verdict_detail =
        graded == 1 ? "does not hold for " + effects : "holds for none of the " + effects;
  }
  if (graded > 1) t->verdict_detail += " (" + breakdown + ")";
  if (t->expectations_from_words) {
    t->verdict_detail += " (claim read from its words: no figures recorded)";
  }
}

}  // namespace reports
}  // namespace trickbench
