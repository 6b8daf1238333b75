#include "reports/run_lines.h"

#include <algorithm>

#include "reports/analyze.h"
#include "reports/format.h"
#include "reports/thresholds.h"

namespace trickbench {
namespace reports {

using doc::Plain;
using doc::Text;

Text RunLine(const Report& r) {
  Text line{Plain("Run " + r.source + ": started " + (r.started.empty() ? "?" : r.started) +
                  ", finished " + (r.finished.empty() ? "?" : r.finished))};
  if (!r.complete) line += Text{Plain(" "), doc::Strong("(INCOMPLETE: run-all did not finish)")};
  line += Plain(".");
  if (!r.forwarded_flags.empty()) {
    line += Plain(" Flags:");
    for (const auto& f : r.forwarded_flags) line += Text{Plain(" "), doc::Code(f)};
  }
  return line;
}

std::string SummaryLine(const Report& r) {
  const ReportCounts n = Count(r);
  return std::to_string(n.tricks) + " tricks: " + std::to_string(n.holds) + " hold, " +
         std::to_string(n.partly) + " hold in part, " + std::to_string(n.does_not_hold) +
         " do not hold here, " + std::to_string(n.inconclusive) + " inconclusive, " +
         std::to_string(n.not_applicable) + " not applicable; " + std::to_string(n.imprecise) +
         " of " + std::to_string(n.settings) + " timed settings imprecise (interval wider than ±" +
         FormatPercent(kImpreciseHalfWidth, 0, false) + ", marked " + kImpreciseMark +
         "; a finding only where the whole interval lies beyond ±" +
         FormatPercent(kNoEffectBand, 0, false) + ").";
}

// A run is worth the measurement it holds: this says how much of it that was.
std::string TimeSplitLine(const Report& r) {
  const results::PhaseSeconds& p = *r.phase_seconds;
  auto part = [&r](const std::string& what, double seconds) {
    const double share = r.run_seconds > 0 ? seconds / r.run_seconds : 0;
    return what + " " + FormatDuration(seconds) + " (" + FormatPercent(share, 0, false) + ")";
  };
  return "Time: " + FormatDuration(r.run_seconds) + " in trick processes; " +
         part("in timed rounds", p.rounds) + ", " +
         part("timed instances' set-up, warm-up and calibration", p.rounds_setup) + ", " +
         part("checks", p.checks) + ", " + part("reproducibility", p.reproducibility) + ", " +
         part("process start and exit (and processes that recorded nothing)",
              std::max(0.0, r.run_seconds - p.Sum())) +
         ".";
}

namespace {
// " (N)": how many processes a target placed, where the record says (a record written
// before it was kept does not).
std::string Placed(int n, const results::RunBudget& b) {
  if (!b.towards_decision) return "";
  return n == 0 ? " (none)" : " (" + std::to_string(n) + ")";
}
}  // namespace

std::string BudgetLine(const results::RunBudget& b) {
  const int added = results::AddedProcesses(b);
  std::string line =
      "Budget: " + FormatDuration(b.seconds) + " for trick processes (" + b.rule +
      "); a first pass of " + std::to_string(b.first_pass_processes) +
      " process(es) per trick took " + FormatDuration(b.first_pass_seconds) + "; then " +
      std::to_string(added) + " more went to " + std::to_string(b.added.size()) +
      " trick(s), where they narrowed the projected intervals most per second "
      "(judged on the spread of the process values only, never on the "
      "estimates), first towards ±" +
      FormatPercent(b.imprecise_half_width, 1, false) +
      Placed(added - b.towards_decision.value_or(0), b) + ", then towards ±" +
      FormatPercent(b.decision_half_width, 1, false) + Placed(b.towards_decision.value_or(0), b) +
      ", at most " + std::to_string(b.max_processes) + " per trick";
  if (b.left_out > 0) line += "; " + std::to_string(b.left_out) + " of them not started";
  return line + (b.left_out > 0 ? ": the budget was spent first." : ".");
}

std::string MethodLine(const Report& r) {
  const std::string processes = r.budget ? "each trick's processes (" +
                                               std::to_string(r.budget->first_pass_processes) +
                                               " or more, see Budget)"
                                         : std::to_string(r.processes) + " process(es)";
  return "Speedup = geometric mean over " + processes +
         " of the median over paired rounds of baseline/variant time, with a " +
         FormatPercent(1 - kAlpha, 0, false) +
         " interval over processes (t; bootstrap from 10 processes; one process: over rounds, "
         "too narrow); p = sign-flip test over processes (from 6), else t; significant below " +
         FormatFixed(kAlpha, 2) + "; imprecise = interval half-width above " +
         FormatPercent(kImpreciseHalfWidth, 0, false) + "; an effect counts when it is beyond ±" +
         FormatPercent(kNoEffectBand, 0, false) +
         " (interval wholly beyond, or a significant "
         "estimate beyond with a precise interval); no effect = interval within ±" +
         FormatPercent(kNoEffectBand, 0, false) +
         ", or a precise interval around an estimate "
         "within it.";
}

}  // namespace reports
}  // namespace trickbench
