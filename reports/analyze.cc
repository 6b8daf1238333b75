#include "reports/analyze.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

#include "reports/format.h"
#include "reports/stats.h"

namespace trickbench {
namespace reports {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ContainsAny(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (text.find(w) != std::string::npos) return true;
  }
  return false;
}

std::string IntervalText(const VariantEffect& c) {
  return FormatRatio(c.speedup) + " [" + FormatRatio(c.ci_low) + ", " + FormatRatio(c.ci_high) +
         "], p=" + FormatP(c.p_value);
}

// The relative half-width at which the interval would either exclude 1x or fit inside
// the no-effect band, whichever comes first.
double SettlingHalfWidth(const VariantEffect& c) {
  const double centre = std::fabs((std::log(c.ci_high) + std::log(c.ci_low)) / 2);
  const double room = std::log1p(kNoEffectBand) - centre;
  return std::expm1(std::max(centre, room));
}

// Schema 1: repetitions that would settle it, assuming the interval's width shrinks as
// 1/sqrt(n).
std::optional<int> RepetitionsToSettle(const VariantEffect& c, int n) {
  const double h = (std::log(c.ci_high) - std::log(c.ci_low)) / 2;
  const double target = std::log1p(std::min(SettlingHalfWidth(c), kImpreciseHalfWidth));
  const double best = n * std::pow(h / target, 2);
  if (!(best <= kMaxRepetitionsAdvice)) return std::nullopt;
  return std::max(n + 1, static_cast<int>(std::ceil(best)));
}

void AdviseToSettle(VariantEffect* c, const stats::Speedup& s, double target) {
  const stats::Settle settle = stats::ToSettle(s, target, 1 - kAlpha);
  if (settle.reachable) {
    c->processes_to_settle = settle.processes;
    c->rounds_to_settle = settle.rounds_per_process;
    c->verdict_detail += "; about " + std::to_string(settle.processes) + " processes x " +
                         std::to_string(settle.rounds_per_process) + " rounds would settle it";
  } else {
    c->verdict_detail += "; more than 1000 processes would be needed";
  }
}

// The verdict on time; `s` is the estimate when the file had rounds, none for schema 1.
void JudgeTime(VariantEffect* c, const std::optional<stats::Speedup>& s, int n) {
  // One process cannot show the variation between processes, which dominates here.
  const std::string interval =
      IntervalText(*c) + (c->method == "rounds" ? " (one process: the interval leaves out "
                                                   "process-to-process variation)"
                                                 : "");
  // The verdict asks whether the effect is material (beyond the +-5 % band), not
  // merely whether it is not zero: a trick measured at 1.03x one run and 1.01x the
  // next is the same finding, "no effect beyond 5 %", where a test of "above 1x" alone
  // flipped between "holds" and "does not hold" on two runs of one build (7 of 54
  // settings here). An interval wholly beyond the band decides even when it is wide.
  const double band_hi = 1 + kNoEffectBand, band_lo = 1 / (1 + kNoEffectBand);
  const std::string band = FormatPercent(kNoEffectBand, 0, false);
  const std::string wide =
      c->imprecise ? " (imprecise: +-" + FormatPercent(c->half_width, 0, false) + ")" : "";
  if (c->ci_low >= band_hi) {
    c->verdict = Verdict::kHolds;
    c->verdict_detail = "faster beyond " + band + ": " + interval + wide;
    return;
  } else if (c->ci_high <= band_lo) {
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "slower beyond " + band + ": " + interval + wide;
    return;
  } else if (c->ci_low >= band_lo && c->ci_high <= band_hi) {
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "no effect beyond " + band + ": " + interval;
    return;
  } else if (c->imprecise) {
    c->verdict = Verdict::kInconclusive;
    c->verdict_detail = "imprecise (+-" + FormatPercent(c->half_width, 0, false) + ", above " +
                        FormatPercent(kImpreciseHalfWidth, 0, false) + "): " + interval;
  } else if (c->significant && c->speedup >= band_hi) {
    c->verdict = Verdict::kHolds;
    c->verdict_detail = "faster: " + interval;
    return;
  } else if (c->significant && c->speedup <= band_lo) {
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "slower: " + interval;
    return;
  } else if (c->speedup > band_lo && c->speedup < band_hi) {
    // A precise interval (half-width <= 10 %) around an estimate inside the band.
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "no material effect: the estimate is within +-" + band + ": " + interval;
    return;
  } else {
    c->verdict = Verdict::kInconclusive;
    c->verdict_detail = "not settled: " + interval;
  }
  const double target = std::min(kImpreciseHalfWidth, SettlingHalfWidth(*c));
  if (s) {
    AdviseToSettle(c, *s, target);
    return;
  }
  c->repetitions_to_settle = RepetitionsToSettle(*c, n);
  c->verdict_detail += c->repetitions_to_settle
                           ? "; about " + std::to_string(*c->repetitions_to_settle) +
                                 " repetitions would settle it"
                           : "; more than " + std::to_string(kMaxRepetitionsAdvice) +
                                 " repetitions would be needed";
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

// The effect's time figures: from the rounds when the file had them, else (schema 1)
// from the repetitions.
std::optional<stats::Speedup> MeasureTime(const Trick& t, const Variant& base, const Variant& v,
                                          VariantEffect* c) {
  if (t.rounds > 0) {
    stats::SpeedupOptions options;
    options.confidence = 1 - kAlpha;
    options.imprecise_half_width = kImpreciseHalfWidth;
    options.seed = Fnv1a(t.id + "\n" + v.case_name + "\n" + v.name, t.seed);
    const stats::Speedup s = stats::EstimateSpeedup(v.log_ratios, options);
    c->speedup = s.speedup, c->ci_low = s.low, c->ci_high = s.high, c->p_value = s.p_value;
    c->method = s.method, c->p_method = s.p_method;
    c->processes = s.processes, c->rounds = s.rounds;
    c->log_se = s.log_se, c->dof = s.dof, c->between_sd = s.between_sd, c->within_sd = s.within_sd;
    c->half_width = s.half_width;
    c->imprecise = s.imprecise;
    c->significant = c->p_value < kAlpha;
    return s;
  }
  const RatioCI ci = RatioInterval(base.samples_ns, v.samples_ns, 1 - kAlpha);
  c->speedup = ci.ratio, c->ci_low = ci.low, c->ci_high = ci.high;
  c->p_value = MannWhitneyU(base.samples_ns, v.samples_ns).p_value;
  c->method = kRepetitionsMethod, c->p_method = "mann_whitney_u";
  c->processes = static_cast<int>(std::max<size_t>(1, v.process_medians_ns.size()));
  c->rounds = static_cast<int>(std::min(base.samples_ns.size(), v.samples_ns.size()));
  c->log_se = (std::log(ci.high) - std::log(ci.low)) / (2 * NormalQuantile(1 - kAlpha / 2));
  c->dof = std::max(1, c->rounds - 1);
  c->half_width = std::max(ci.high / ci.ratio - 1, 1 - ci.low / ci.ratio);
  c->imprecise = c->half_width > kImpreciseHalfWidth;
  c->significant = c->p_value < kAlpha;
  return std::nullopt;
}

Verdict JudgeMemory(const VariantEffect& c, std::string* detail) {
  if (c.peak_bytes_baseline == 0 && c.peak_bytes_variant == 0) {
    *detail = "memory: no CPU allocation seen by the meter";
    return Verdict::kInconclusive;
  }
  const std::string change =
      FormatBytes(c.peak_bytes_baseline) + " -> " + FormatBytes(c.peak_bytes_variant) +
      (c.memory_change ? " (" + FormatPercent(*c.memory_change) + ")" : "");
  if (c.peak_bytes_variant < c.peak_bytes_baseline) {
    *detail = "less memory: " + change;
    return Verdict::kHolds;
  }
  *detail = "memory not lower: " + change;
  return Verdict::kDoesNotHold;
}

}  // namespace

void ClassifyClaim(const std::string& claim, bool* time, bool* memory) {
  std::string c = Lower(claim);
  // "memory access cost" is about time, not about how much memory is held.
  for (size_t at; (at = c.find("memory access")) != std::string::npos;) c.erase(at, 13);
  *memory = ContainsAny(c, {"memory", "smaller"});
  const bool time_words =
      ContainsAny(c, {"fast", "speed", "time", "\xc3\x97", "slow", "overhead", "throughput",
                      "bandwidth", "sync", "copy", "overlap", "hides", "%", "cost"});
  const bool expects_slowdown = c.find("slowdown") != std::string::npos;
  *time = expects_slowdown ? !*memory : (time_words || !*memory);
}

void Analyze(Trick* t) {
  ClassifyClaim(t->claim, &t->claims_time, &t->claims_memory);
  t->imprecise = false;
  for (Variant& v : t->variants) {
    if (v.samples_ns.empty()) continue;
    const Summary s = Summarize(v.samples_ns);
    v.median = s.median, v.q1 = s.q1, v.q3 = s.q3, v.iqr = s.iqr, v.mean = s.mean;
    v.stddev = s.stddev, v.cv = s.cv, v.relative_iqr = s.relative_iqr;
  }
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
    c.peak_bytes_baseline = base->peak_bytes;
    c.peak_bytes_variant = v.peak_bytes;
    if (base->peak_bytes > 0) {
      c.memory_change = static_cast<double>(v.peak_bytes - base->peak_bytes) / base->peak_bytes;
    }
    c.timed = !base->samples_ns.empty() && !v.samples_ns.empty() &&
              (t->rounds == 0 || HasRound(v.log_ratios));
    if (t->outcome != results::RunOutcome::kOk) {
      c.verdict = Verdict::kNotApplicable;
      c.verdict_detail = results::Name(t->outcome) + (t->reason.empty() ? "" : ": " + t->reason);
    } else {
      std::vector<std::string> parts;
      std::vector<Verdict> verdicts;
      if (c.timed) {
        const std::optional<stats::Speedup> s = MeasureTime(*t, *base, v, &c);
        t->imprecise |= c.imprecise;
        JudgeTime(&c, s, c.rounds);
        if (t->claims_time) {
          verdicts.push_back(c.verdict);
          parts.push_back(c.verdict_detail);
        } else {
          parts.push_back("time (not claimed): " + c.verdict_detail);
        }
      } else if (t->claims_time) {
        verdicts.push_back(Verdict::kInconclusive);
        parts.push_back("not timed");
      }
      if (t->claims_memory) {
        std::string detail;
        verdicts.push_back(JudgeMemory(c, &detail));
        parts.push_back(detail);
      }
      const auto has = [&](Verdict x) {
        return std::find(verdicts.begin(), verdicts.end(), x) != verdicts.end();
      };
      c.verdict = has(Verdict::kDoesNotHold)    ? Verdict::kDoesNotHold
                  : has(Verdict::kInconclusive) ? Verdict::kInconclusive
                  : verdicts.empty()            ? Verdict::kNotApplicable
                                                : Verdict::kHolds;
      c.verdict_detail.clear();
      for (const auto& p : parts) c.verdict_detail += (c.verdict_detail.empty() ? "" : "; ") + p;
      if (c.verdict != Verdict::kInconclusive) {
        c.repetitions_to_settle.reset();
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
  int holds = 0, inconclusive = 0;
  for (const auto& c : t->effects) {
    holds += c.verdict == Verdict::kHolds;
    inconclusive += c.verdict == Verdict::kInconclusive;
  }
  const int n = static_cast<int>(t->effects.size());
  if (holds > 0) {
    t->verdict = Verdict::kHolds;
    t->verdict_detail = holds == n ? "holds in every setting measured"
                                   : "holds in " + std::to_string(holds) + " of " +
                                         std::to_string(n) + " settings";
  } else if (inconclusive > 0) {
    t->verdict = Verdict::kInconclusive;
    t->verdict_detail = std::to_string(inconclusive) + " of " + std::to_string(n) +
                        " settings not settled" + (t->imprecise ? " (imprecise)" : "");
  } else {
    t->verdict = Verdict::kDoesNotHold;
    t->verdict_detail = "does not hold in any of " + std::to_string(n) + " settings";
  }
}

stats::Speedup SpeedupOf(const VariantEffect& e) {
  stats::Speedup s;
  s.speedup = e.speedup;
  s.low = e.ci_low;
  s.high = e.ci_high;
  s.log_se = e.log_se;
  s.dof = e.dof;
  s.p_value = e.p_value;
  s.method = e.method;
  s.p_method = e.p_method;
  s.processes = e.processes;
  s.rounds = e.rounds;
  s.half_width = e.half_width;
  s.imprecise = e.imprecise;
  s.between_sd = e.between_sd;
  s.within_sd = e.within_sd;
  return s;
}

}  // namespace reports
}  // namespace trickbench
