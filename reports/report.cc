#include "reports/report.h"

namespace trickbench {
namespace reports {

std::string VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kHolds:
      return "holds";
    case Verdict::kDoesNotHold:
      return "does not hold here";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kNotApplicable:
      return "not applicable";
    case Verdict::kPartly:
      return "holds in part";
  }
  return "not applicable";
}

std::string GradeName(Grade g) {
  switch (g) {
    case Grade::kHolds:
      return "holds";
    case Grade::kSmallerThanClaimed:
      return "smaller than claimed";
    case Grade::kLargerThanClaimed:
      return "larger than claimed";
    case Grade::kNoEffect:
      return "no effect";
    case Grade::kOpposite:
      return "opposite";
    case Grade::kImprecise:
      return "imprecise";
    case Grade::kNotSettled:
      return "not settled";
    case Grade::kNotApplicable:
      return "not applicable here";
  }
  return "not applicable here";
}

Verdict VerdictOf(Grade g) {
  switch (g) {
    case Grade::kHolds:
      return Verdict::kHolds;
    case Grade::kSmallerThanClaimed:
    case Grade::kLargerThanClaimed:
    case Grade::kNoEffect:
    case Grade::kOpposite:
      return Verdict::kDoesNotHold;
    case Grade::kImprecise:
    case Grade::kNotSettled:
      return Verdict::kInconclusive;
    case Grade::kNotApplicable:
      return Verdict::kNotApplicable;
  }
  return Verdict::kNotApplicable;
}

ReportCounts Count(const Report& report) {
  ReportCounts c;
  for (const auto& t : report.tricks) {
    ++c.tricks;
    c.holds += t.verdict == Verdict::kHolds;
    c.partly += t.verdict == Verdict::kPartly;
    c.does_not_hold += t.verdict == Verdict::kDoesNotHold;
    c.inconclusive += t.verdict == Verdict::kInconclusive;
    c.not_applicable += t.verdict == Verdict::kNotApplicable;
    for (const auto& e : t.effects) {
      c.settings += e.timed;
      c.imprecise += e.timed && e.time.imprecise;
    }
  }
  return c;
}

std::string SettingName(const std::string& case_name, const std::string& variant) {
  return case_name.empty() ? variant : case_name + "/" + variant;
}

}  // namespace reports
}  // namespace trickbench
