// The speedup of a variant over its baseline from paired rounds in several processes,
// with its interval and p-value, and the compare of two such speedups.
//
//   // log_ratios[p][r] = log(baseline time / variant time) in round r of process p
//   trickbench::stats::Speedup s = trickbench::stats::EstimateSpeedup(log_ratios);
//   // s.speedup 1.18, [s.low, s.high] = [1.12, 1.25], s.method "t", s.imprecise false
//   trickbench::stats::Change c = trickbench::stats::CompareSpeedups(old_s, new_s);
//
// Why this shape. On a shared machine, run-to-run drift (20-40 % here) and process-level
// effects (allocation layout, page placement, frequency) are larger than most effects,
// and repetitions inside one process are not independent samples of them. So:
// - the unit of pairing is a round (every variant of a case back to back, in a random
//   recorded order), and the quantity is the per-round log ratio, which cancels drift
//   that hits both variants of a round alike;
// - each process contributes ONE value, the median of its rounds' log ratios (robust to
//   a round hit by interference); the speedup is the geometric mean over processes;
// - the interval is over processes: a t interval on the process values when there are
//   few (< kBootstrapMinProcesses), else a seeded two-stage bootstrap (processes, then
//   rounds within each; its shape, calibrated to the process values' variance and t
//   quantiles, see speedup.cc), so a report is reproducible. With one process the between-process
//   variance cannot be estimated: the interval is a bootstrap over rounds and says so
//   (method "rounds"): it is narrower than the truth.
// - the p-value: a sign-flip randomization test over the process values when there are
//   enough of them for it to reach alpha (>= 6: 2/64 < 0.05), else the t test's.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trickbench {
namespace stats {

inline constexpr int kBootstrapMinProcesses = 10;
inline constexpr int kSignFlipMinProcesses = 6;

struct SpeedupOptions {
  double confidence = 0.95;
  uint64_t seed = 0;  // bootstrap and Monte Carlo sign flips
  int resamples = 2000;
  double imprecise_half_width = 0.10;  // relative half-width above which it is "imprecise"
};

struct Speedup {
  double speedup = 1;        // exp(mean over processes of the median log ratio)
  double low = 1, high = 1;  // interval on the speedup
  double log_se = 0;         // standard error of log(speedup)
  double dof = 0;            // degrees of freedom of log_se (processes - 1; rounds - 1 for one)
  double p_value = 1;        // H0: speedup = 1 (two-sided)
  std::string method;        // "t", "bootstrap", "rounds"
  std::string p_method;      // "sign_flip", "t"
  int processes = 0, rounds = 0;  // rounds: total over processes
  double half_width = 0;          // max(high / speedup - 1, 1 - low / speedup)
  bool imprecise = false;
  double between_sd = 0;  // sd of the process values (log scale)
  double within_sd = 0;   // pooled sd of round log ratios around their process median
};

// log_ratios: one vector per process, one value per round; empty processes are ignored.
// Throws std::invalid_argument when there is no round at all or a value is not finite.
Speedup EstimateSpeedup(const std::vector<std::vector<double>>& log_ratios,
                        const SpeedupOptions& options = {});

// What it would take to reach a relative half-width `target`: more processes when the
// between-process variance dominates (adding rounds cannot remove it), else more rounds.
struct Settle {
  int processes = 0, rounds_per_process = 0;
  bool reachable = true;  // false when even 1000 processes would not do
};
Settle ToSettle(const Speedup& s, double target_half_width, double confidence = 0.95);

// Two speedups of the same benchmark (old run, new run) as a change of the new one.
enum class ChangeOutcome { kFaster, kSlower, kUnchanged, kUnknown };
std::string ChangeOutcomeName(ChangeOutcome o);  // "faster", "slower", "unchanged", "unknown"

struct Change {
  double ratio = 1;          // new speedup / old speedup
  double low = 1, high = 1;  // interval on the ratio (the `confidence` asked for)
  double log_se = 0;         // standard error of log(ratio)
  double dof = 0;            // its degrees of freedom (Welch; pairs - 1); 0: infinite
  double p_value = 1;        // H0: ratio = 1 (Welch t on the log scale)
  double p_adjusted = 1;     // after the multiple-comparison correction (Holm)
  ChangeOutcome outcome = ChangeOutcome::kUnknown;
};
Change CompareSpeedups(const Speedup& old_s, const Speedup& new_s, double confidence = 0.95);

// A change measured over pairs (process k of an old build against process k of a new
// one, interleaved in one A/B session): `log_ratios[k]` = log(old time / new time), so
// ratio > 1 is faster, as in Change. A t interval and test over the pairs: the pairing
// cancels the session's drift, and the pairs are the independent units. Needs at least
// two pairs (throws std::invalid_argument otherwise, or for a value that is not finite).
Change ComparePaired(const std::vector<double>& log_ratios, double confidence = 0.95);

struct DecisionRule {
  double alpha = 0.05;
  double min_effect = 0.05;  // relative: changes within +-5 % are not worth a verdict
};
// Holm's step-down correction over all `changes`, then per change: faster/slower when
// the adjusted p < alpha and the effect is beyond min_effect; unchanged when two
// one-sided tests at alpha (Schuirmann's TOST) both reject a change beyond
// +-min_effect, i.e. the 1 - 2 alpha interval (90 % at alpha 0.05) lies inside it; else
// unknown.
//
// Why TOST and not "the 95 % interval inside": each one-sided test is at alpha, so a
// setting whose true change is exactly +-min_effect is called "unchanged" with
// probability at most alpha (speedup_test.cc measures it at the margin); requiring the
// 95 % interval inside held that error at alpha / 2 and left settings "unknown" that
// the data had already settled. Like the interval rule before it, the equivalence is
// per setting (not corrected over settings): a wrong "unchanged" hides a change of the
// min_effect size in that setting only, and a false alarm, the error the Holm
// correction controls, cannot come from it.
void Decide(std::vector<Change>* changes, const DecisionRule& rule = {});

// The 1 - 2 alpha interval on the ratio that Decide's equivalence test reads, as
// [low, high].
std::pair<double, double> EquivalenceInterval(const Change& c, double alpha);

// Holm-adjusted p-values, in the input's order.
std::vector<double> HolmAdjust(const std::vector<double>& p_values);

// The smallest true relative effect the design detects with `power` at `alpha`
// (two-sided): (t_{1-alpha/2} + t_{power}) * log_se, as a relative change.
double MinimumDetectableEffect(const Speedup& s, double alpha = 0.05, double power = 0.8);

}  // namespace stats
}  // namespace trickbench
