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

void JudgeTime(VariantEffect* c, int n) {
  const std::string interval = FormatRatio(c->speedup) + " [" + FormatRatio(c->ci_low) + ", " +
                               FormatRatio(c->ci_high) + "], p=" + FormatP(c->p_value);
  const double band_hi = 1 + kNoEffectBand, band_lo = 1 / (1 + kNoEffectBand);
  // Repetitions that would make the interval either exclude 1 or fit inside the
  // no-effect band, assuming its width shrinks as 1/sqrt(n).
  auto settle = [&]() -> std::optional<int> {
    const double h = (std::log(c->ci_high) - std::log(c->ci_low)) / 2;
    const double centre = std::fabs((std::log(c->ci_high) + std::log(c->ci_low)) / 2);
    double best = 1e300;
    if (centre > 0) best = std::min(best, n * std::pow(h / centre, 2));
    const double room = std::log(band_hi) - centre;
    if (room > 0) best = std::min(best, n * std::pow(h / room, 2));
    if (best > kMaxRepetitionsAdvice) return std::nullopt;
    return std::max(n + 1, static_cast<int>(std::ceil(best)));
  };
  const bool settled = (c->significant && (c->ci_low > 1 || c->ci_high < 1)) ||
                       (c->ci_low >= band_lo && c->ci_high <= band_hi);
  if (c->noisy) {
    c->verdict = Verdict::kInconclusive;
    c->verdict_detail = "noisy (relative IQR above " + FormatPercent(kNoiseThreshold, 0, false) +
                        "): " + interval + " is not a finding";
    if (settled) {
      // More repetitions do not lower the spread: only a quieter machine helps.
      c->verdict_detail += "; the interval is clear, the spread is not: re-run on a quiet machine";
      return;
    }
    c->repetitions_to_settle = settle();
  } else if (c->significant && c->ci_low > 1) {
    c->verdict = Verdict::kHolds;
    c->verdict_detail = "faster: " + interval;
  } else if (c->significant && c->ci_high < 1) {
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "slower: " + interval;
  } else if (c->ci_low >= band_lo && c->ci_high <= band_hi) {
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "no effect beyond " + FormatPercent(kNoEffectBand, 0, false) + ": " +
                        interval;
  } else {
    c->verdict = Verdict::kInconclusive;
    c->verdict_detail = "not settled: " + interval;
    c->repetitions_to_settle = settle();
  }
  if (c->verdict == Verdict::kInconclusive) {
    c->verdict_detail += c->repetitions_to_settle
                             ? "; about " + std::to_string(*c->repetitions_to_settle) +
                                   " repetitions would settle it"
                             : "; more than " + std::to_string(kMaxRepetitionsAdvice) +
                                   " repetitions would be needed";
  }
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
  t->noisy = false;
  for (Variant& v : t->variants) {
    if (v.samples_ns.empty()) continue;
    const Summary s = Summarize(v.samples_ns);
    v.median = s.median, v.q1 = s.q1, v.q3 = s.q3, v.iqr = s.iqr, v.mean = s.mean;
    v.stddev = s.stddev, v.cv = s.cv, v.relative_iqr = s.relative_iqr;
    v.noisy = s.relative_iqr > kNoiseThreshold;
    t->noisy |= v.noisy;
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
    c.timed = !base->samples_ns.empty() && !v.samples_ns.empty();
    if (t->outcome != results::RunOutcome::kOk) {
      c.verdict = Verdict::kNotApplicable;
      c.verdict_detail = results::Name(t->outcome) + (t->reason.empty() ? "" : ": " + t->reason);
    } else {
      std::vector<std::string> parts;
      std::vector<Verdict> verdicts;
      if (c.timed) {
        const RatioCI ci = RatioInterval(base->samples_ns, v.samples_ns, 1 - kAlpha);
        c.speedup = ci.ratio, c.ci_low = ci.low, c.ci_high = ci.high;
        c.p_value = MannWhitneyU(base->samples_ns, v.samples_ns).p_value;
        c.significant = c.p_value < kAlpha;
        c.noisy = base->noisy || v.noisy;
        JudgeTime(&c, static_cast<int>(std::min(base->samples_ns.size(), v.samples_ns.size())));
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
      if (c.verdict != Verdict::kInconclusive) c.repetitions_to_settle.reset();
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
                        " settings not settled" + (t->noisy ? " (noisy)" : "");
  } else {
    t->verdict = Verdict::kDoesNotHold;
    t->verdict_detail = "does not hold in any of " + std::to_string(n) + " settings";
  }
}

}  // namespace reports
}  // namespace trickbench
