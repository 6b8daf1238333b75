#include "harness/summary.h"

#include <iomanip>
#include <map>
#include <sstream>

namespace trickbench {

void PrintSummary(std::ostream& out, const results::ResultFile& result, const TimingBackend& timing) {
  std::map<std::string, double> median;
  for (const auto& b : result.benchmarks) {
    if (b.value("run_type", "") == "aggregate" && b.value("aggregate_name", "") == "median") {
      median[b.value("run_name", "")] = b.value("real_time", 0.0);
    }
  }
  const results::TrickResult& t = result.trickbench;
  out << "\n" << t.id << ": " << t.claim << "\n";
  for (const auto& cc : t.checks.value_or(std::vector<results::CaseChecks>{})) {
    if (cc.variants.empty()) continue;
    const auto& base = cc.variants.front();
    const double tb = median[base.benchmark];
    for (size_t i = 1; i < cc.variants.size(); ++i) {
      const auto& vc = cc.variants[i];
      const double tv = median[vc.benchmark];
      std::ostringstream line;
      line << std::fixed << std::setprecision(2) << "  "
           << (cc.case_name.empty() ? "" : cc.case_name + " ") << vc.name << " vs " << base.name
           << ": ";
      if (tb > 0 && tv > 0) line << tb / tv << "x speed (median), ";
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
