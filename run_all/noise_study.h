// The noise study: how often this machine makes compare cry wolf, and how large a
// slowdown it catches. Runs whole run_all sessions of one build and compares them with
// the decision a user gets from //reports:compare (reports::CompareReports).
//
//   bazel run //run_all:noise_study                       # 12 A/A + 4 planted sessions
//   bazel run //run_all:noise_study -- --sessions=3 --tricks=noop_a,noop_b --dry_run
//   bazel run //run_all:noise_study -- --part=aa          # the A/A part alone, then:
//   bazel run //run_all:noise_study -- --part=planted --reuse=runs/noise-study-<time>
//   bazel run //run_all:noise_study -- --noise=OTHER_STUDY/noise_study.json   # compare --noise
//
// - A/A: S sessions of run_all with the same settings; every pair is compared
//   (S*(S-1)/2 comparisons). Any "faster" or "slower" outcome is a false alarm: per
//   setting (a variant of a case of a trick) and pooled, with a Clopper-Pearson upper
//   95 % bound, since a rate of 0 out of 21 says less than it seems.
// - Planted: sessions with --plant_slowdown=all:F (every non-baseline variant busy-waits
//   to run F times slower), each compared against every A/A session as old; outcome
//   "slower" is a detection. Split by whether the setting's minimum detectable effect
//   (the median over its A/A comparisons of compare's minimum_detectable_effect) is
//   within the planted size: a design that cannot see 10 % is not expected to.
// - Between sessions: per setting, how far the A/A sessions' estimates spread against
//   their own standard errors (SessionSpread): a part that every process of a session
//   shares is missing from its interval, and shows up as compare's false alarms.
// - Each session is a run folder under the study folder (aa-1, ..., plant-1.10-1, ...);
//   a complete one is reused, so a long study can be resumed and its parts run apart.
//
// Why sessions of run_all and not a simulation: the simulation (stats/simulation.h)
// proves the statistics on a model; this measures the model's fit to this machine.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "reports/document.h"
#include "reports/report.h"
#include "reports/session_parts.h"
#include "results/checked_json.h"
#include "stats/speedup.h"

namespace trickbench {
namespace run_all {
namespace noise {

// The default trick set: quick CPU tricks spanning the catalog's categories.
const std::vector<std::string>& DefaultTricks();

// A planted slowdown factor as the study writes it: "1.10" (session folders plant-1.10-K,
// --plant_slowdown=all:1.10, the summary's "planted x1.10").
std::string FactorName(double f);

struct Tally {
  int comparisons = 0, hits = 0;
  void Add(bool hit) {
    ++comparisons;
    hits += hit ? 1 : 0;
  }
  void Add(const Tally& t) {
    comparisons += t.comparisons;
    hits += t.hits;
  }
  double Rate() const { return comparisons ? static_cast<double>(hits) / comparisons : 0; }
};

// How a setting's estimate varies from one A/A session to the next, against what each
// session's own interval says (its standard error): a meta-analysis's heterogeneity.
// Why: a session's interval is over its processes, so what all processes of a session
// share (the machine's state that hour, what the host's neighbours do to memory
// bandwidth) is left out of it, and compare then reads that as a change. h near 1: the
// intervals hold the variation; above it, compare's false alarms exceed alpha by as much
// as the between-session part is beyond the min effect.
//
// Why an F test and not Cochran's Q: a session's standard error is itself estimated from
// a few processes (3 degrees of freedom for 4), and Q weighs by its inverse square,
// whose mean is dof / (dof - 2) times the truth: 3x at 3 degrees of freedom. On seeded
// studies of 12 such sessions with no between-session part, Q fired in about half
// (noise_study_test.cc). The variance of the estimates against the mean squared standard
// error is unbiased on both sides.
struct SessionSpread {
  int sessions = 0;
  // sqrt(variance of the sessions' log speedups / mean of their squared standard
  // errors): 1 when each session's interval holds the variation between sessions.
  double h = 1;
  // h^2 against F(sessions - 1, the sessions' standard errors' degrees of freedom summed):
  // H0 no between-session part.
  double p_value = 1;
  double between_sd = 0;  // sqrt(max(0, variance - mean squared error)): the part, log scale
};

// One setting of compare (trick, case, variant) across the study's comparisons.
struct SettingStudy {
  std::string trick, case_name, variant;
  Tally false_alarms;                // A/A: outcome faster or slower
  std::vector<double> mdes;          // per A/A comparison: compare's minimum_detectable_effect
  std::map<double, Tally> detected;  // planted factor -> outcome slower
  // Per A/A session that has this setting, in session order: its speedup as that
  // session's report states it (Spread reads speedup, log_se and dof).
  std::vector<stats::Speedup> sessions;
  // The median of `mdes`; none without an A/A comparison of this benchmark.
  std::optional<double> Mde() const;
  // From the sessions' estimates; none with fewer than 3 sessions, or a session without
  // a standard error or its degrees of freedom (one round).
  std::optional<SessionSpread> Spread() const;
};

struct StudyResult {
  stats::DecisionRule rule;
  // The session parts compare added (another study's noise_study.json, as compare
  // --noise does); "" when none.
  std::string noise_source;
  int aa_sessions = 0;
  std::map<double, int> planted_sessions;  // factor -> sessions
  std::vector<SettingStudy> settings;      // in first-seen order
  Tally pooled_false_alarms;
  // factor -> (MDE within the planted size, beyond it or unknown)
  std::map<double, std::pair<Tally, Tally>> detection;
};

// Per setting of compare (trick, case, variant): `aa` in session order; `planted`:
// factor and report. Uses reports::CompareReports with `rule` and `parts`: the session
// parts of another study (of other sessions: a held-out check that adding them keeps
// A/A false alarms at alpha), nullptr for compare as measured. The between-session
// spread is of the sessions' own estimates either way.
StudyResult AnalyzeStudy(const std::vector<reports::Report>& aa,
                         const std::vector<std::pair<double, reports::Report>>& planted,
                         const stats::DecisionRule& rule = {},
                         const reports::SessionParts* parts = nullptr);

// The median over settings of each setting's MDE: the effect a typical setting can
// see. None when no setting has one.
std::optional<double> MedianMde(const StudyResult& r);
// Settings with an A/A comparison, and those whose false-alarm rate's upper 95 % bound
// is at most `bound` (what the study's size can promise per setting: 0 of 58 gives 5.0 %).
std::pair<int, int> SettingsBoundedBy(const StudyResult& r, double bound);
// Settings with a SessionSpread, and those whose sessions vary beyond their own
// intervals (p < 0.05).
std::pair<int, int> SettingsVaryingBetweenSessions(const StudyResult& r);

// noise_study.json (kind trickbench-noise-study, schema_version 2: "settings", which
// version 1 called "benchmarks"; median_mde, settings_bounded_7pct, per setting
// between_sessions, and noise (the parts' study, or null) came later within 2).
results::Json ToJson(const StudyResult& r);
// The study as a document (reports/document.h): printed as Markdown to the terminal
// and noise_study.md, as HTML to noise_study.html.
reports::doc::Document StudyDocument(const StudyResult& r);

// The noise_study program: args are argv[1..] (Bazel passes the trick binaries first).
int NoiseStudyMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace noise
}  // namespace run_all
}  // namespace trickbench
