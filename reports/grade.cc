#include "reports/grade.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "reports/claims.h"
#include "reports/format.h"
#include "reports/thresholds.h"
#include "stats/speedup.h"

namespace trickbench {
namespace reports {

std::string IntervalText(const VariantEffect& c) {
  return FormatRatio(c.time.speedup) + " [" + FormatRatio(c.time.low) + ", " +
         FormatRatio(c.time.high) + "], p=" + FormatP(c.time.p_value);
}

uint64_t Fnv1a(const std::string& text, uint64_t h) {
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  return h;
}

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

namespace {

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

}  // namespace

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
    // The device's peak on CUDA, the CPU meter's elsewhere (and for host_memory): the
    // figures of process 1, and every process's for the spread.
    const bool cuda = e.metric == "memory" && t.device.rfind("cuda", 0) == 0;
    double b_peak = static_cast<double>(base.check.peak_bytes);
    double v_peak = static_cast<double>(v.check.peak_bytes);
    std::string text;
    if (cuda) {
      const auto b = base.check.counters.find("cuda_peak_allocated_bytes");
      const auto x = v.check.counters.find("cuda_peak_allocated_bytes");
      if (b == base.check.counters.end() || x == v.check.counters.end()) {
        *why = "no device memory peak recorded";
        return std::nullopt;
      }
      b_peak = b->second, v_peak = x->second;
      text = "device peak " + FormatBytes(static_cast<int64_t>(b_peak)) + " -> " +
             FormatBytes(static_cast<int64_t>(v_peak));
    } else {
      if (b_peak == 0 && v_peak == 0) {
        *why = "no CPU allocation seen by the meter";
        return std::nullopt;
      }
      text = FormatBytes(base.check.peak_bytes) + " -> " + FormatBytes(v.check.peak_bytes) +
             (c.memory_change ? " (" + FormatPercent(*c.memory_change) + ")" : "");
    }
    if (auto m = MemoryOverProcesses(
            t, v, cuda ? base.process_device_peak_bytes : base.process_peak_bytes,
            cuda ? v.process_device_peak_bytes : v.process_peak_bytes, text)) {
      return m;
    }
    return Exact(b_peak, v_peak, text);
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

}  // namespace reports
}  // namespace trickbench
