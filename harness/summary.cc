#include "harness/summary.h"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>

#include "stats/speedup.h"

namespace trickbench {
namespace {

// The report's one-process speedup of `variant` in `case_name`, and its round count;
// none when the file has no rounds for it.
std::optional<std::pair<double, size_t>> RoundsSpeedup(const results::TrickResult& t,
                                                       const std::string& case_name,
                                                       const std::string& variant) {
  const auto v = std::find(t.variants.begin(), t.variants.end(), variant);
  if (v == t.variants.end()) return std::nullopt;
  for (const results::CaseRounds& c : t.rounds) {
    if (c.case_name != case_name) continue;
    const std::vector<double> log_ratios = c.LogRatios(static_cast<int>(v - t.variants.begin()));
    if (log_ratios.empty()) return std::nullopt;
    return std::make_pair(stats::EstimateSpeedup({log_ratios}).speedup, log_ratios.size());
  }
  return std::nullopt;
}

}  // namespace

void PrintSummary(std::ostream& out, const results::ResultFile& result,
                  const TimingBackend& timing) {
  const results::TrickResult& t = result.trickbench;
  out << "\n" << t.id << ": " << t.claim << "\n";
  for (const auto& cc : t.checks.value_or(std::vector<results::CaseChecks>{})) {
    if (cc.variants.empty()) continue;
    const auto& base = cc.variants.front();
    for (size_t i = 1; i < cc.variants.size(); ++i) {
      const auto& vc = cc.variants[i];
      std::ostringstream line;
      line << std::fixed << std::setprecision(2) << "  "
           << (cc.case_name.empty() ? "" : cc.case_name + " ") << vc.name << " vs " << base.name
           << ": ";
      if (const auto s = RoundsSpeedup(t, cc.case_name, vc.name)) {
        line << s->first << "x speed (median of " << s->second << " paired rounds), ";
      }
      const double mem =
          base.peak_bytes > 0 ? 100.0 * (vc.peak_bytes - base.peak_bytes) / base.peak_bytes : 0;
      line << "peak CPU memory " << base.peak_bytes << " -> " << vc.peak_bytes << " bytes ("
           << std::showpos << mem << std::noshowpos << "%)";
      out << line.str() << "\n";
      for (const std::string& extra : timing.SummaryLines(base.counters, vc.counters)) {
        out << extra << "\n";
      }
    }
  }
  const results::Reproducibility repro = t.reproducibility.value_or(results::Reproducibility{});
  out << "  reproducible under the deterministic guard (" << repro.variant
      << "): " << (repro.bitwise_reproducible ? "bitwise" : "NO: " + repro.detail)
      << "\n  (intervals and verdicts: reports/, from run-all)\n";
}

}  // namespace trickbench
