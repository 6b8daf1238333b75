// One claimed effect in one measured setting: the figure it is about, on the baseline /
// variant scale, and its grade by the rules of reports/SCHEMA.md section 5. Analyze
// (analyze.h) calls these for every expectation of every setting.
//
//   std::string why;
//   if (std::optional<Measured> m = MeasureFor(e, trick, baseline, variant, effect, &why)) {
//     Grade g = GradeAgainst(e, *m, &why);   // kHolds, kNoEffect, ...; why says which rule
//   }  // else not measured here: why says so ("counter x not recorded for both variants")
//
// What is measured: time (the effect's interval), a rate (that interval scaled by the
// work ratio), peak memory (exact, or an interval over the processes where their peaks
// differ) and counters the trick measures (exact). A counter without `measured_by` is
// evidence and is never measured here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reports/report.h"
#include "results/expectation.h"

namespace trickbench {
namespace reports {

// A measured effect on the baseline / variant scale (> 1: the variant lowers the metric).
struct Measured {
  double estimate = 1, low = 1, high = 1;
  bool imprecise = false;
  bool significant = false;  // the interval excludes 1 (exact figures: they differ)
  std::string text;
};

// The figure `e` is about, in this setting; none (and why) when it was not measured.
std::optional<Measured> MeasureFor(const results::Expectation& e, const TrickReport& t,
                                   const Variant& base, const Variant& v, const VariantEffect& c,
                                   std::string* why);

// The grading rules of SCHEMA.md section 5, in order. `m` is on the baseline / variant
// scale; a claimed cost (e.lowers false) is graded on its inverse, so that every claim
// reads "the factor is at least `low`" and, for a cost, "at most `high`".
Grade GradeAgainst(const results::Expectation& e, const Measured& m, std::string* why);

// "1.23x [1.10x, 1.37x], p=0.0078": the effect's time interval as the report prints it.
std::string IntervalText(const VariantEffect& c);

// A seed for a resampling that must give the same report every time it is rendered:
// FNV-1a of `text` from `h`.
uint64_t Fnv1a(const std::string& text, uint64_t h = 14695981039346656037ull);

}  // namespace reports
}  // namespace trickbench
