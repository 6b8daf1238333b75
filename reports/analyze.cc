#include "reports/analyze.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <limits>
#include <optional>
#include <vector>

#include "reports/format.h"
#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace reports {

namespace {

std::string IntervalText(const VariantEffect& c) {
  return FormatRatio(c.time.speedup) + " [" + FormatRatio(c.time.low) + ", " +
         FormatRatio(c.time.high) + "], p=" + FormatP(c.time.p_value);
}

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
std::string SettleText(const VariantEffect& c) {
  if (c.processes_to_settle) {
    return "; about " + std::to_string(*c.processes_to_settle) + " processes x " +
           std::to_string(c.rounds_to_settle.value_or(0)) + " rounds would settle it";
  }
  return "; more than 1000 processes would be needed";
}

// The time's own reading, whatever the claim: material (beyond the +-5 % band) faster or
// slower, no effect, or not settled (then with what would settle it). Shown beside the
// grades, and on its own where no claim is about time.
std::string ReadTime(VariantEffect* c) {
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
  return reading + SettleText(*c);
}

bool HasRound(const std::vector<std::vector<double>>& log_ratios) {
  for (const auto& p : log_ratios) {
    if (!p.empty()) return true;
  }
  return false;
}

uint64_t Fnv1a(const std::string& text, uint64_t h = 14695981039346656037ull) {
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  return h;
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

// A measured effect on the baseline / variant scale (> 1: the variant lowers the metric).
struct Measured {
  double estimate = 1, low = 1, high = 1;
  bool imprecise = false;
  bool significant = false;  // the interval excludes 1 (exact figures: they differ)
  std::string text;
};

// The grading rules of SCHEMA.md section 5, in order. `m` is on the baseline / variant
// scale; a claimed cost (e.lowers false) is graded on its inverse, so that every claim
// reads "the factor is at least `low`" and, for a cost, "at most `high`".
Grade GradeAgainst(const results::Expectation& e, const Measured& m, std::string* why) {
  const double band_hi = 1 + kNoEffectBand, band_lo = 1 / band_hi;
  const double est = e.lowers ? m.estimate : 1 / m.estimate;
  const double lo = e.lowers ? m.low : 1 / m.high;
  const double hi = e.lowers ? m.high : 1 / m.low;
  const double want = ClaimedFactorFloor(e);
  const bool cost = !e.lowers;
  const std::string claimed_low = e.low > 0 ? FactorRange(e.low, 0).substr(3) : "the band";
  if (lo >= want) {
    if (cost && e.high > 0 && lo > e.high) {
      *why = "a larger cost than the claimed at most " + FactorRange(e.high, e.high);
      return Grade::kLargerThanClaimed;
    }
    if (cost && e.high > 0 && hi > e.high) {
      *why = "a real cost, but whether it stays within " + FactorRange(e.high, e.high) +
             " is not settled";
      return Grade::kNotSettled;
    }
    *why = !cost && e.high > 0 && lo > e.high ? "above the claimed range" : "in the claimed range";
    return Grade::kHolds;
  }
  if (hi <= band_lo) {
    *why = "a material effect the other way";
    return Grade::kOpposite;
  }
  if (lo >= band_lo && hi <= band_hi) {
    *why = "the interval lies within ±" + FormatPercent(kNoEffectBand, 0, false);
    return Grade::kNoEffect;
  }
  if (lo >= band_hi && hi < want) {
    *why = "a material effect, below the claimed " + claimed_low;
    return Grade::kSmallerThanClaimed;
  }
  if (m.imprecise) {
    *why = "the interval is wider than ±" + FormatPercent(kImpreciseHalfWidth, 0, false);
    return Grade::kImprecise;
  }
  if (est > band_lo && est < band_hi) {
    *why =
        "a precise interval around an estimate within ±" + FormatPercent(kNoEffectBand, 0, false);
    return Grade::kNoEffect;
  }
  if (m.significant && est <= band_lo) {
    *why = "significant, the other way";
    return Grade::kOpposite;
  }
  if (m.significant && est >= band_hi) {
    if (hi < want) {
      *why = "significant, below the claimed " + claimed_low;
      return Grade::kSmallerThanClaimed;
    }
    if (want <= band_hi && !(cost && e.high > 0 && hi > e.high)) {
      *why = "significant, beyond the band";
      return Grade::kHolds;
    }
    *why = "a real effect; whether it reaches the claimed range is not settled";
    return Grade::kNotSettled;
  }
  *why = "the interval straddles the band's edge";
  return Grade::kNotSettled;
}

// Exact figures (the checks' memory and counters): an "interval" of one point.
Measured Exact(double baseline, double variant, std::string text) {
  Measured m;
  m.estimate = baseline == variant ? 1
               : variant == 0      ? std::numeric_limits<double>::infinity()
                                   : baseline / variant;
  m.low = m.high = m.estimate;
  m.significant = baseline != variant;
  m.text = std::move(text);
  return m;
}

// Peak memory over the processes, when they disagree: where threads allocate (a loader's
// workers) the peak is not one number, and one process's reading flipped a verdict at
// the band's edge between two runs of one build. Each process's log(baseline / variant)
// is one value through the time's estimator (one round per process): an interval,
// graded by the same band rule. None when every process read the same pair (then the
// figure is exact) or a peak is not positive.
std::optional<Measured> MemoryOverProcesses(const TrickReport& t, const Variant& v,
                                            const std::vector<double>& base,
                                            const std::vector<double>& var,
                                            const std::string& exact_text) {
  std::vector<std::vector<double>> per_process;
  bool differ = false;
  for (size_t p = 0; p < std::min(base.size(), var.size()); ++p) {
    if (!(base[p] > 0) || !(var[p] > 0)) return std::nullopt;
    per_process.push_back({std::log(base[p] / var[p])});
    differ |= per_process.back()[0] != per_process.front()[0];
  }
  if (per_process.size() < 2 || !differ) return std::nullopt;
  stats::SpeedupOptions options;
  options.confidence = 1 - kAlpha;
  options.imprecise_half_width = kImpreciseHalfWidth;
  options.seed = Fnv1a(t.id + "\nmemory\n" + v.case_name + "\n" + v.name, t.seed);
  const stats::Speedup s = stats::EstimateSpeedup(per_process, options);
  Measured m;
  m.estimate = s.speedup, m.low = s.low, m.high = s.high;
  m.imprecise = s.imprecise;
  m.significant = s.p_value < kAlpha;
  m.text = exact_text + " in process 1; the " + std::to_string(per_process.size()) +
           " processes' peaks differ: baseline / variant " + FormatRatio(s.speedup) + " [" +
           FormatRatio(s.low) + ", " + FormatRatio(s.high) + "]";
  return m;
}

// The figure `e` is about, in this setting; none (and why) when it was not measured.
std::optional<Measured> MeasureFor(const results::Expectation& e, const TrickReport& t,
                                   const Variant& base, const Variant& v, const VariantEffect& c,
                                   std::string* why) {
  if (e.metric == "time") {
    if (!c.timed) {
      *why = "not timed";
      return std::nullopt;
    }
    Measured m;
    m.estimate = c.time.speedup, m.low = c.time.low, m.high = c.time.high;
    m.imprecise = c.time.imprecise;
    m.significant = c.significant;
    m.text = IntervalText(c) + (c.time.method == "rounds" ? " (one process: the interval leaves "
                                                            "out process-to-process variation)"
                                                          : "");
    return m;
  }
  if (e.metric == "memory" || e.metric == "host_memory") {
    const bool cuda = e.metric == "memory" && t.device.rfind("cuda", 0) == 0;
    if (cuda) {
      const auto b = base.check.counters.find("cuda_peak_allocated_bytes");
      const auto x = v.check.counters.find("cuda_peak_allocated_bytes");
      if (b == base.check.counters.end() || x == v.check.counters.end()) {
        *why = "no device memory peak recorded";
        return std::nullopt;
      }
      const std::string text = "device peak " + FormatBytes(static_cast<int64_t>(b->second)) +
                               " -> " + FormatBytes(static_cast<int64_t>(x->second));
      if (auto m = MemoryOverProcesses(t, v, base.process_device_peak_bytes,
                                       v.process_device_peak_bytes, text)) {
        return m;
      }
      return Exact(b->second, x->second, text);
    }
    if (base.check.peak_bytes == 0 && v.check.peak_bytes == 0) {
      *why = "no CPU allocation seen by the meter";
      return std::nullopt;
    }
    const std::string text = FormatBytes(base.check.peak_bytes) + " -> " +
                             FormatBytes(v.check.peak_bytes) +
                             (c.memory_change ? " (" + FormatPercent(*c.memory_change) + ")" : "");
    if (auto m = MemoryOverProcesses(t, v, base.process_peak_bytes, v.process_peak_bytes, text)) {
      return m;
    }
    return Exact(static_cast<double>(base.check.peak_bytes),
                 static_cast<double>(v.check.peak_bytes), text);
  }
  const auto counter = [&](const std::string& name) -> std::optional<std::pair<double, double>> {
    const auto b = base.check.counters.find(name);
    const auto x = v.check.counters.find(name);
    if (b == base.check.counters.end() || x == v.check.counters.end() ||
        !std::isfinite(b->second) || !std::isfinite(x->second)) {
      *why = "counter " + name + " not recorded for both variants";
      return std::nullopt;
    }
    return std::make_pair(b->second, x->second);
  };
  // Three significant digits, whatever the scale: a drift of 6e-4 is not "0.001".
  const auto num = [](double d) {
    if (d == 0 || std::fabs(d) >= 100) return FormatFixed(d, 0);
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", d);
    return std::string(text);
  };
  if (e.metric == "rate") {
    // Work per measured second: the work ratio is a constant of the shapes, so the
    // rate's interval is the time's, scaled: (W_b / t_b) / (W_v / t_v) = (W_b / W_v) / s.
    if (!c.timed) {
      *why = "not timed";
      return std::nullopt;
    }
    const auto w = counter(e.work);
    if (!w) return std::nullopt;
    if (w->first <= 0 || w->second <= 0) {
      *why = "work counter " + e.work + " is not positive for both variants";
      return std::nullopt;
    }
    const double work = w->first / w->second;
    Measured m;
    m.estimate = work / c.time.speedup, m.low = work / c.time.high, m.high = work / c.time.low;
    m.imprecise = c.time.imprecise;
    m.significant = m.low > 1 || m.high < 1;
    m.text = e.work + " per second " + FormatRatio(m.estimate) + " [" + FormatRatio(m.low) + ", " +
             FormatRatio(m.high) + "] lower (" + e.work + " " + num(w->first) + " -> " +
             num(w->second) + ", time " + IntervalText(c) + ")";
    return m;
  }
  if (e.measured_by.empty()) {
    // A figure the trick's own code or shapes decide: no measurement could change it.
    *why = "evidence, not a measurement: " + e.metric +
           " is set by the trick's own code, so it is shown, not graded";
    return std::nullopt;
  }
  const auto x = counter(e.metric);
  if (!x) return std::nullopt;
  return Exact(
      x->first, x->second,
      e.metric + " " + num(x->first) + " -> " + num(x->second) + " (" + e.measured_by + ")");
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
    if (e.device == "none") {
      g.grade = Grade::kNotApplicable;
      g.measured = "-";
      g.detail = "not covered by this experiment on any device: " + e.note;
      c->grades.push_back(std::move(g));
      continue;
    }
    if (!e.device.empty() && t.device.rfind(e.device, 0) != 0) {
      g.grade = Grade::kNotApplicable;
      g.measured = "-";
      g.detail = "the claim is for " + e.device + " (" + e.note + "); this run is on " +
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
        g.detail += SettleText(*c);
      }
    }
    c->grades.push_back(std::move(g));
  }
}

}  // namespace

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
        time_detail = ReadTime(&c);
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
