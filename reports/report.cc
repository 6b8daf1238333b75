#include "reports/report.h"

namespace trickbench {
namespace reports {

std::string VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kDoesNotHold: return "does not hold here";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kNotApplicable: return "not applicable";
  }
  return "not applicable";
}

ReportCounts Count(const Report& report) {
  ReportCounts c;
  for (const auto& t : report.tricks) {
    ++c.tricks;
    c.holds += t.verdict == Verdict::kHolds;
    c.does_not_hold += t.verdict == Verdict::kDoesNotHold;
    c.inconclusive += t.verdict == Verdict::kInconclusive;
    c.not_applicable += t.verdict == Verdict::kNotApplicable;
    for (const auto& e : t.effects) {
      c.settings += e.timed;
      c.imprecise += e.timed && e.imprecise;
    }
  }
  return c;
}

bool DescribesOneHost(const std::string& key) {
  return key == "host_name" || key == "mhz_per_cpu";
}

std::string SettingName(const std::string& case_name, const std::string& variant) {
  return case_name.empty() ? variant : case_name + "/" + variant;
}

}  // namespace reports
}  // namespace trickbench
