#include "run_all/noise_study.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "reports/compare.h"
#include "reports/load.h"
#include "results/run_index.h"
#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace run_all {
namespace noise {

using results::Json;

const std::vector<std::string>& DefaultTricks() {
  // Two or more per category of docs/CATALOG.md but Distributed (ddp_vs_dp starts
  // rank processes: minutes, not seconds), each a few seconds per process on CPU.
  static const std::vector<std::string> tricks = {
      "avoid_host_sync",        // Data loading
      "zero_copy_from_blob",    // Data loading
      "seed_everything",        // Determinism
      "fuse_pointwise",         // Kernels and data operations
      "batch_small_ops",        // Kernels and data operations
      "no_grad_inference",      // Model architecture and training
      "zero_grad_set_to_none",  // Model architecture and training
      "conv_bias_before_bn",    // Model architecture and training
      "inplace_ops",            // Model architecture and training
  };
  return tricks;
}

std::string FactorName(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", f);
  return buf;
}

std::optional<double> SettingStudy::Mde() const {
  if (mdes.empty()) return std::nullopt;
  return stats::Median(mdes);
}

std::optional<SessionSpread> SettingStudy::Spread() const {
  const size_t n = sessions.size();
  if (n < 3) return std::nullopt;
  double mean_se2 = 0, dof_se = 0;
  std::vector<double> logs;
  for (const stats::Speedup& s : sessions) {
    if (!(s.log_se > 0) || !(s.dof > 0) || !(s.speedup > 0)) return std::nullopt;
    mean_se2 += s.log_se * s.log_se / n;
    dof_se += s.dof;
    logs.push_back(std::log(s.speedup));
  }
  const double sd = stats::Summarize(logs).stddev;
  const double d1 = static_cast<double>(n - 1), f = sd * sd / mean_se2;
  SessionSpread s;
  s.sessions = static_cast<int>(n);
  s.h = std::sqrt(f);
  // F(d1, d2) CDF at f: I_{d1 f / (d1 f + d2)}(d1 / 2, d2 / 2).
  s.p_value = 1 - stats::IncompleteBeta(d1 / 2, dof_se / 2, d1 * f / (d1 * f + dof_se));
  s.between_sd = std::sqrt(std::max(0.0, sd * sd - mean_se2));
  return s;
}

namespace {

SettingStudy& Find(StudyResult* r, const reports::SpeedupChange& c) {
  for (auto& b : r->settings) {
    if (b.trick == c.trick && b.case_name == c.case_name && b.variant == c.variant) return b;
  }
  r->settings.push_back({c.trick, c.case_name, c.variant, {}, {}, {}});
  return r->settings.back();
}

bool IsAlarm(stats::ChangeOutcome o) {
  return o == stats::ChangeOutcome::kFaster || o == stats::ChangeOutcome::kSlower;
}

std::string Percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * x);
  return buf;
}

Json RateJson(const Tally& t, const char* hits_name, bool bound) {
  Json j = {{"comparisons", t.comparisons},
            {hits_name, t.hits},
            {"rate", t.comparisons ? Json(t.Rate()) : Json(nullptr)}};
  if (bound) {
    j["upper_95"] =
        t.comparisons ? Json(stats::ClopperPearsonUpper(t.hits, t.comparisons)) : Json(nullptr);
  }
  return j;
}

std::string RateText(const Tally& t, bool bound) {
  if (t.comparisons == 0) return "no comparison";
  std::string s =
      std::to_string(t.hits) + "/" + std::to_string(t.comparisons) + " = " + Percent(t.Rate());
  if (bound) {
    s += " (upper 95% " + Percent(stats::ClopperPearsonUpper(t.hits, t.comparisons)) + ")";
  }
  return s;
}

// "h 1.85, sd 1.9% (p 0.002)": see SessionSpread.
std::string SpreadText(const std::optional<SessionSpread>& s) {
  if (!s) return "-";
  char p[16], buf[96];
  if (s->p_value < 0.001) {
    std::snprintf(p, sizeof p, "< 0.001");
  } else {
    std::snprintf(p, sizeof p, "%.3f", s->p_value);
  }
  std::snprintf(buf, sizeof buf, "h %.2f, sd %s (p %s)", s->h,
                Percent(std::expm1(s->between_sd)).c_str(), p);
  return buf;
}

}  // namespace

StudyResult AnalyzeStudy(const std::vector<reports::Report>& aa,
                         const std::vector<std::pair<double, reports::Report>>& planted,
                         const stats::DecisionRule& rule, const reports::SessionParts* parts) {
  StudyResult r;
  r.rule = rule;
  if (parts) r.noise_source = parts->source;
  r.aa_sessions = static_cast<int>(aa.size());
  for (size_t i = 0; i < aa.size(); ++i) {
    for (size_t j = i + 1; j < aa.size(); ++j) {
      const reports::ReportDiff diff = reports::CompareReports(aa[i], aa[j], rule, parts);
      for (const reports::SpeedupChange& c : diff.speedups) {
        SettingStudy& b = Find(&r, c);
        b.false_alarms.Add(IsAlarm(c.change.outcome));
        // Each session's own estimate, once: the first session from its pair with the
        // second, every later one from its pair with the first. As compare tested it (read
        // at the first session's machine speed, where all recorded it, since it is the old
        // side of every pair here): the part between sessions is what compare's test leaves out.
        if (i == 0) {
          if (j == 1) b.sessions.push_back(c.old_side);
          b.sessions.push_back(c.new_side);
        }
        // What this comparison could detect (compare states it); 0 when a side has no
        // standard error (one round).
        if (c.minimum_detectable_effect > 0) b.mdes.push_back(c.minimum_detectable_effect);
      }
    }
  }
  for (const auto& [factor, report] : planted) {
    ++r.planted_sessions[factor];
    for (const reports::Report& a : aa) {
      const reports::ReportDiff diff = reports::CompareReports(a, report, rule, parts);
      for (const reports::SpeedupChange& c : diff.speedups) {
        Find(&r, c).detected[factor].Add(c.change.outcome == stats::ChangeOutcome::kSlower);
      }
    }
  }
  for (const SettingStudy& b : r.settings) {
    r.pooled_false_alarms.Add(b.false_alarms);
    const std::optional<double> mde = b.Mde();
    for (const auto& [factor, tally] : b.detected) {
      auto& split = r.detection[factor];
      (mde && *mde <= factor - 1 + 1e-12 ? split.first : split.second).Add(tally);
    }
  }
  return r;
}

std::optional<double> MedianMde(const StudyResult& r) {
  std::vector<double> mdes;
  for (const SettingStudy& b : r.settings) {
    if (const std::optional<double> m = b.Mde()) mdes.push_back(*m);
  }
  if (mdes.empty()) return std::nullopt;
  return stats::Median(mdes);
}

std::pair<int, int> SettingsBoundedBy(const StudyResult& r, double bound) {
  std::pair<int, int> out = {0, 0};
  for (const SettingStudy& b : r.settings) {
    if (b.false_alarms.comparisons == 0) continue;
    ++out.first;
    out.second +=
        stats::ClopperPearsonUpper(b.false_alarms.hits, b.false_alarms.comparisons) <= bound;
  }
  return out;
}

std::pair<int, int> SettingsVaryingBetweenSessions(const StudyResult& r) {
  std::pair<int, int> out = {0, 0};
  for (const SettingStudy& b : r.settings) {
    const std::optional<SessionSpread> s = b.Spread();
    if (!s) continue;
    ++out.first;
    out.second += s->p_value < 0.05;
  }
  return out;
}

// The per-setting bound the issue of record asks the study to show.
constexpr double kSettingBound = 0.07;

Json ToJson(const StudyResult& r) {
  Json planted = Json::object();
  for (const auto& [f, n] : r.planted_sessions) planted[FactorName(f)] = n;
  Json detection = Json::array();
  for (const auto& [f, split] : r.detection) {
    detection.push_back({{"factor", f},
                         {"mde_within", RateJson(split.first, "detected", false)},
                         {"mde_beyond", RateJson(split.second, "detected", false)}});
  }
  Json settings = Json::array();
  for (const SettingStudy& b : r.settings) {
    Json det = Json::array();
    for (const auto& [f, t] : b.detected) {
      Json d = RateJson(t, "detected", false);
      d["factor"] = f;
      det.push_back(d);
    }
    const std::optional<double> mde = b.Mde();
    const std::optional<SessionSpread> spread = b.Spread();
    settings.push_back({{"trick", b.trick},
                        {"case", b.case_name},
                        {"variant", b.variant},
                        {"false_alarms", RateJson(b.false_alarms, "false_alarms", true)},
                        {"mde", mde ? Json(*mde) : Json(nullptr)},
                        {"between_sessions", spread ? Json{{"sessions", spread->sessions},
                                                           {"h", spread->h},
                                                           {"p_value", spread->p_value},
                                                           {"between_sd", spread->between_sd}}
                                                    : Json(nullptr)},
                        {"detected", det}});
  }
  return {{"kind", "trickbench-noise-study"},
          {"schema_version", 2},
          {"rule", {{"alpha", r.rule.alpha}, {"min_effect", r.rule.min_effect}}},
          {"noise", r.noise_source.empty() ? Json(nullptr) : Json(r.noise_source)},
          {"aa_sessions", r.aa_sessions},
          {"aa_comparisons", r.aa_sessions * (r.aa_sessions - 1) / 2},
          {"planted_sessions", planted},
          {"pooled_false_alarms", RateJson(r.pooled_false_alarms, "false_alarms", true)},
          {"median_mde", MedianMde(r) ? Json(*MedianMde(r)) : Json(nullptr)},
          {"settings_bounded_7pct",
           {{"settings", SettingsBoundedBy(r, kSettingBound).first},
            {"bounded", SettingsBoundedBy(r, kSettingBound).second}}},
          {"detection", detection},
          {"settings", settings}};
}

reports::doc::Document StudyDocument(const StudyResult& r) {
  namespace doc = reports::doc;
  doc::Document d;
  d.title = "trickbench noise study";
  std::string design = std::to_string(r.aa_sessions) + " A/A sessions (" +
                       std::to_string(r.aa_sessions * (r.aa_sessions - 1) / 2) + " comparisons)";
  for (const auto& [f, n] : r.planted_sessions) {
    design += ", " + std::to_string(n) + " planted x" + FactorName(f);
  }
  char rule[96];
  std::snprintf(rule, sizeof rule, "; compare's rule: alpha %g (Holm), min effect %s.",
                r.rule.alpha, Percent(r.rule.min_effect).c_str());
  d.blocks.push_back(doc::Paragraph{"noise study: " + design + rule});
  if (!r.noise_source.empty()) {
    d.blocks.push_back(doc::Paragraph{
        "Compared as compare --noise=" + r.noise_source +
        " does: each setting that study measured has its between-session sd added to both "
        "sides (a held-out check only when that study's sessions are not these)."});
  }
  std::vector<std::string> columns = {"setting", "A/A false alarms", "MDE", "between sessions"};
  for (const auto& [f, n] : r.planted_sessions) columns.push_back("detected x" + FactorName(f));
  doc::Table table("settings", columns);
  for (const SettingStudy& b : r.settings) {
    const std::optional<double> mde = b.Mde();
    std::vector<doc::Cell> row = {
        reports::SettingName(b.trick + (b.case_name.empty() ? "" : "/" + b.case_name), b.variant),
        doc::Cell(RateText(b.false_alarms, true),
                  b.false_alarms.hits > 0 ? doc::Tone::kBad : doc::Tone::kPlain),
        mde ? Percent(*mde) : "-", SpreadText(b.Spread())};
    for (const auto& [f, n] : r.planted_sessions) {
      const auto it = b.detected.find(f);
      row.push_back(it == b.detected.end() ? "-" : RateText(it->second, false));
    }
    table.AddRow(std::move(row));
  }
  d.blocks.push_back(std::move(table));
  doc::List totals;
  totals.items.push_back("pooled false alarms: " + RateText(r.pooled_false_alarms, true));
  const auto [with_aa, bounded] = SettingsBoundedBy(r, kSettingBound);
  totals.items.push_back("settings whose false-alarm rate is at most " + Percent(kSettingBound) +
                         " at the upper 95% bound: " + std::to_string(bounded) + " of " +
                         std::to_string(with_aa));
  const auto [with_spread, varying] = SettingsVaryingBetweenSessions(r);
  totals.items.push_back(
      "settings whose A/A sessions vary beyond their own intervals (F test, p < 0.05; "
      "h = their spread in units of their standard errors, sd = the part a session shares): " +
      std::to_string(varying) + " of " + std::to_string(with_spread));
  const std::optional<double> median = MedianMde(r);
  totals.items.push_back("median minimum detectable effect over settings: " +
                         (median ? Percent(*median) : std::string("-")));
  for (const auto& [f, split] : r.detection) {
    totals.items.push_back("planted x" + FactorName(f) + " detected (outcome slower): MDE <= " +
                           Percent(f - 1) + ": " + RateText(split.first, false) +
                           "; MDE above or unknown: " + RateText(split.second, false));
  }
  d.blocks.push_back(std::move(totals));
  return d;
}

}  // namespace noise
}  // namespace run_all
}  // namespace trickbench
