#include "run_all/noise_study.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "reports/compare.h"
#include "reports/load.h"
#include "results/run_index.h"
#include "stats/distributions.h"

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

std::optional<double> BenchmarkStudy::Mde() const {
  if (mdes.empty()) return std::nullopt;
  std::vector<double> v = mdes;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

namespace {

BenchmarkStudy& Find(StudyResult* r, const reports::SpeedupChange& c) {
  for (auto& b : r->benchmarks) {
    if (b.trick == c.trick && b.case_name == c.case_name && b.variant == c.variant) return b;
  }
  r->benchmarks.push_back({c.trick, c.case_name, c.variant, {}, {}, {}});
  return r->benchmarks.back();
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
  Json j = {{"comparisons", t.comparisons}, {hits_name, t.hits},
            {"rate", t.comparisons ? Json(t.Rate()) : Json(nullptr)}};
  if (bound) {
    j["upper_95"] =
        t.comparisons ? Json(stats::ClopperPearsonUpper(t.hits, t.comparisons)) : Json(nullptr);
  }
  return j;
}

std::string RateText(const Tally& t, bool bound) {
  if (t.comparisons == 0) return "no comparison";
  std::string s = std::to_string(t.hits) + "/" + std::to_string(t.comparisons) + " = " +
                  Percent(t.Rate());
  if (bound) {
    s += " (upper 95% " + Percent(stats::ClopperPearsonUpper(t.hits, t.comparisons)) + ")";
  }
  return s;
}

}  // namespace

StudyResult Analyze(const std::vector<reports::Report>& aa,
                    const std::vector<std::pair<double, reports::Report>>& planted,
                    const stats::DecisionRule& rule) {
  StudyResult r;
  r.rule = rule;
  r.aa_sessions = static_cast<int>(aa.size());
  for (size_t i = 0; i < aa.size(); ++i) {
    for (size_t j = i + 1; j < aa.size(); ++j) {
      const reports::ReportDiff diff = reports::CompareReports(aa[i], aa[j], rule);
      for (const reports::SpeedupChange& c : diff.speedups) {
        BenchmarkStudy& b = Find(&r, c);
        b.false_alarms.Add(IsAlarm(c.change.outcome));
        // What this comparison could detect (compare states it); 0 when a side has no
        // standard error (one round).
        if (c.minimum_detectable_effect > 0) b.mdes.push_back(c.minimum_detectable_effect);
      }
    }
  }
  for (const auto& [factor, report] : planted) {
    ++r.planted_sessions[factor];
    for (const reports::Report& a : aa) {
      const reports::ReportDiff diff = reports::CompareReports(a, report, rule);
      for (const reports::SpeedupChange& c : diff.speedups) {
        Find(&r, c).detected[factor].Add(c.change.outcome == stats::ChangeOutcome::kSlower);
      }
    }
  }
  for (const BenchmarkStudy& b : r.benchmarks) {
    r.pooled_false_alarms.Add(b.false_alarms);
    const std::optional<double> mde = b.Mde();
    for (const auto& [factor, tally] : b.detected) {
      auto& split = r.detection[factor];
      (mde && *mde <= factor - 1 + 1e-12 ? split.first : split.second).Add(tally);
    }
  }
  return r;
}

Json ToJson(const StudyResult& r) {
  Json planted = Json::object();
  for (const auto& [f, n] : r.planted_sessions) planted[FactorName(f)] = n;
  Json detection = Json::array();
  for (const auto& [f, split] : r.detection) {
    detection.push_back({{"factor", f},
                         {"mde_within", RateJson(split.first, "detected", false)},
                         {"mde_beyond", RateJson(split.second, "detected", false)}});
  }
  Json benchmarks = Json::array();
  for (const BenchmarkStudy& b : r.benchmarks) {
    Json det = Json::array();
    for (const auto& [f, t] : b.detected) {
      Json d = RateJson(t, "detected", false);
      d["factor"] = f;
      det.push_back(d);
    }
    const std::optional<double> mde = b.Mde();
    benchmarks.push_back({{"trick", b.trick},
                          {"case", b.case_name},
                          {"variant", b.variant},
                          {"false_alarms", RateJson(b.false_alarms, "false_alarms", true)},
                          {"mde", mde ? Json(*mde) : Json(nullptr)},
                          {"detected", det}});
  }
  return {{"kind", "trickbench-noise-study"},
          {"schema_version", 1},
          {"rule", {{"alpha", r.rule.alpha}, {"min_effect", r.rule.min_effect}}},
          {"aa_sessions", r.aa_sessions},
          {"aa_comparisons", r.aa_sessions * (r.aa_sessions - 1) / 2},
          {"planted_sessions", planted},
          {"pooled_false_alarms", RateJson(r.pooled_false_alarms, "false_alarms", true)},
          {"detection", detection},
          {"benchmarks", benchmarks}};
}

void PrintSummary(const StudyResult& r, std::ostream& out) {
  out << "\nnoise study: " << r.aa_sessions << " A/A sessions ("
      << r.aa_sessions * (r.aa_sessions - 1) / 2 << " comparisons)";
  for (const auto& [f, n] : r.planted_sessions) out << ", " << n << " planted x" << FactorName(f);
  out << "; compare's rule: alpha " << r.rule.alpha << " (Holm), min effect "
      << Percent(r.rule.min_effect) << "\n\n";
  out << "| benchmark | A/A false alarms | MDE |";
  for (const auto& [f, n] : r.planted_sessions) out << " detected x" << FactorName(f) << " |";
  out << "\n|---|---|---|";
  for (size_t i = 0; i < r.planted_sessions.size(); ++i) out << "---|";
  out << "\n";
  for (const BenchmarkStudy& b : r.benchmarks) {
    const std::optional<double> mde = b.Mde();
    out << "| " << b.trick << (b.case_name.empty() ? "" : "/" + b.case_name) << "/" << b.variant
        << " | " << RateText(b.false_alarms, true) << " | " << (mde ? Percent(*mde) : "-") << " |";
    for (const auto& [f, n] : r.planted_sessions) {
      const auto it = b.detected.find(f);
      out << " " << (it == b.detected.end() ? "-" : RateText(it->second, false)) << " |";
    }
    out << "\n";
  }
  out << "\npooled false alarms: " << RateText(r.pooled_false_alarms, true) << "\n";
  for (const auto& [f, split] : r.detection) {
    out << "planted x" << FactorName(f) << " detected (outcome slower): MDE <= "
        << Percent(f - 1) << ": " << RateText(split.first, false) << "; MDE above or unknown: "
        << RateText(split.second, false) << "\n";
  }
}

}  // namespace noise
}  // namespace run_all
}  // namespace trickbench
