#include "reports/report_json.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "reports/analyze.h"
#include "reports/format.h"

namespace trickbench {
namespace reports {
namespace {

using results::Fields;
using results::Json;
using results::JsonPath;

Json OrNull(const std::optional<int>& x) { return x ? Json(*x) : Json(nullptr); }

Json VariantJson(const Variant& v) {
  const stats::Summary& s = v.summary;
  return {{"case", v.case_name},
          {"name", v.name},
          {"baseline", v.baseline},
          {"samples_ns", v.samples_ns},
          {"process_medians_ns", v.process_medians_ns},
          {"log_ratios", v.log_ratios},
          {"process_probe_ns", v.process_probe_ns},
          {"process_iterations", v.process_iterations},
          {"faults_per_iteration", v.faults_per_iteration},
          {"switches_per_sample", v.switches_per_sample},
          {"host_ns_per_iteration", v.host_ns_per_iteration},
          {"samples", v.samples_ns.size()},
          {"median_ns", s.median},
          {"q1_ns", s.q1},
          {"q3_ns", s.q3},
          {"iqr_ns", s.iqr},
          {"mean_ns", s.mean},
          {"stddev_ns", s.stddev},
          {"cv", s.cv},
          {"relative_iqr", s.relative_iqr},
          {"check", results::ToJson(v.check)}};
}

Json SpeedupJson(const stats::Speedup& s) {
  return {{"speedup", s.speedup},
          {"low", s.low},
          {"high", s.high},
          {"p_value", s.p_value},
          {"method", s.method},
          {"p_method", s.p_method},
          {"processes", s.processes},
          {"rounds", s.rounds},
          {"log_se", s.log_se},
          {"dof", s.dof},
          {"between_sd", s.between_sd},
          {"within_sd", s.within_sd},
          {"half_width", s.half_width},
          {"imprecise", s.imprecise}};
}

Json GradesJson(const std::vector<ClaimGrade>& grades) {
  Json out = Json::array();
  for (const ClaimGrade& g : grades) {
    out.push_back({{"expectation", results::ToJson(g.expectation)},
                   {"claimed", g.claimed},
                   {"measured", g.measured},
                   {"grade", GradeName(g.grade)},
                   {"detail", g.detail}});
  }
  return out;
}

Json EffectJson(const VariantEffect& c) {
  return {{"case", c.case_name},
          {"variant", c.variant},
          {"baseline", c.baseline},
          {"timed", c.timed},
          {"time", c.timed ? SpeedupJson(c.time) : Json(nullptr)},
          {"significant", c.significant},
          {"peak_bytes_baseline", c.peak_bytes_baseline},
          {"peak_bytes_variant", c.peak_bytes_variant},
          {"memory_change", c.memory_change ? Json(*c.memory_change) : Json(nullptr)},
          {"grades", GradesJson(c.grades)},
          {"verdict", VerdictName(c.verdict)},
          {"verdict_detail", c.verdict_detail},
          {"processes_to_settle", OrNull(c.processes_to_settle)},
          {"rounds_to_settle", OrNull(c.rounds_to_settle)}};
}

// Positive finite times, each error naming its element.
std::vector<double> Times(const Fields& f, const Json& a, const std::string& path) {
  std::vector<double> out;
  for (size_t k = 0; k < a.size(); ++k) {
    const std::string sp = JsonPath(path, k);
    if (!a[k].is_number()) f.Fail(sp, "expected a number, got " + results::TypeName(a[k]));
    const double x = a[k].get<double>();
    if (!std::isfinite(x)) f.Fail(sp, "not a finite number");
    if (x <= 0) f.Fail(sp, (x < 0 ? "negative time " : "zero time ") + FormatFixed(x, 3));
    out.push_back(x);
  }
  return out;
}

}  // namespace

Json ReportToJson(const Report& r) {
  Json tricks = Json::array();
  for (const TrickReport& t : r.tricks) {
    Json variants = Json::array(), comparisons = Json::array();
    for (const auto& v : t.variants) variants.push_back(VariantJson(v));
    for (const auto& c : t.effects) comparisons.push_back(EffectJson(c));
    Json rep = nullptr;  // the record's first four fields: per case is in the result files
    if (t.reproducibility) {
      rep = {{"checked", t.reproducibility->checked},
             {"bitwise_reproducible", t.reproducibility->bitwise_reproducible},
             {"fingerprint", t.reproducibility->fingerprint},
             {"detail", t.reproducibility->detail}};
    }
    tricks.push_back({{"id", t.id},
                      {"category", t.category},
                      {"source", t.source},
                      {"claim", t.claim},
                      {"claims", {{"time", t.claims_time}, {"memory", t.claims_memory}}},
                      {"expectations",
                       [&] {
                         Json a = Json::array();
                         for (const auto& e : t.expectations) a.push_back(results::ToJson(e));
                         return a;
                       }()},
                      {"expectations_from_words", t.expectations_from_words},
                      {"outcome", results::Name(t.outcome)},
                      {"reason", t.reason},
                      {"verdict", VerdictName(t.verdict)},
                      {"verdict_detail", t.verdict_detail},
                      {"imprecise", t.imprecise},
                      {"device", t.device},
                      {"process_notes", t.process_notes},
                      {"process_seconds", t.process_seconds},
                      {"settings",
                       {{"processes", t.processes},
                        {"rounds", t.rounds},
                        {"threads", t.threads},
                        {"min_time", t.min_time},
                        {"seed", t.seed}}},
                      {"tolerance",
                       {{"rtol", t.tolerance.rtol},
                        {"atol", t.tolerance.atol},
                        {"bitwise", t.tolerance.bitwise()}}},
                      {"reproduced_variant", t.reproduced_variant},
                      {"reproducibility", rep},
                      {"variants", variants},
                      {"comparisons", comparisons}});
  }
  const ReportCounts n = Count(r);
  Json env = Json::object();
  Json ab = nullptr;
  if (r.ab) {
    ab = {{"seed", r.ab->seed},
          {"role", r.ab->role},
          {"old_bin_dir", r.ab->old_bin_dir},
          {"new_bin_dir", r.ab->new_bin_dir},
          {"order", r.ab->order}};
  }
  for (const auto& [k, v] : r.environment) env[k] = v;
  Json j = {{"kind", kReportKind},
            {"schema_version", kReportSchemaVersion},
            {"source", r.source},
            {"started", r.started},
            {"finished", r.finished},
            {"complete", r.complete},
            {"forwarded_flags", r.forwarded_flags},
            {"processes", r.processes},
            {"run_seconds", r.run_seconds},
            {"machine",
             {{"load_start", r.machine.load_start},
              {"load_end", r.machine.load_end},
              {"steal_seconds", r.machine.steal_seconds},
              {"involuntary_switches", r.machine.involuntary_switches}}},
            {"ab", ab},
            {"statistics",
             {{"speedup",
               "per process the median over rounds of log(baseline / variant); the speedup is the "
               "geometric mean over processes (stats::EstimateSpeedup)"},
              {"interval",
               "t on the process values (< 10 processes), calibrated two-stage bootstrap (>= 10), "
               "bootstrap over rounds (1 process)"},
              {"test", "sign-flip randomization over processes (>= 6), else t"},
              {"alpha", kAlpha},
              {"confidence", 1 - kAlpha},
              {"imprecise_half_width", kImpreciseHalfWidth},
              {"no_effect_band", kNoEffectBand}}},
            {"environment", env},
            {"environment_notes", r.environment_notes},
            {"summary",
             {{"tricks", n.tricks},
              {"holds", n.holds},
              {"partly", n.partly},
              {"does_not_hold", n.does_not_hold},
              {"inconclusive", n.inconclusive},
              {"not_applicable", n.not_applicable},
              {"settings", n.settings},
              {"imprecise", n.imprecise}}},
            {"tricks", tricks}};
  // Optional: reports of runs from before the phases were recorded have none.
  if (r.phase_seconds) j["phase_seconds"] = results::ToJson(*r.phase_seconds);
  if (r.budget) j["budget"] = results::ToJson(*r.budget);  // a budgeted run only
  return j;
}

Report ReportFromJson(const Json& j, const std::string& file) {
  const Fields f(file);
  if (const std::string kind = f.String(j, "", "kind"); kind != kReportKind) {
    f.Fail("kind", "expected \"" + std::string(kReportKind) + "\", got \"" + kind + "\"");
  }
  const int64_t version = f.Int(j, "", "schema_version");
  if (version < kReportSchemaVersion) {
    f.Fail("schema_version",
           "version " + std::to_string(version) + " is an older report (this build reads version " +
               std::to_string(kReportSchemaVersion) +
               "); re-render it from its run folder: bazel run //reports:report -- RUN_DIR");
  }
  f.Version(j, "", kReportSchemaVersion);
  Report r;
  r.source = f.String(j, "", "source");
  r.started = f.String(j, "", "started");
  r.finished = f.String(j, "", "finished");
  r.complete = f.Bool(j, "", "complete");
  r.forwarded_flags = f.Strings(j, "", "forwarded_flags");
  for (const auto& [k, v] : f.Object(j, "", "environment").items()) {
    if (!v.is_string())
      f.Fail("environment." + k, "expected a string, got " + results::TypeName(v));
    r.environment[k] = v.get<std::string>();
  }
  r.environment_notes = f.Strings(j, "", "environment_notes");
  r.processes = static_cast<int>(f.Int(j, "", "processes", 1));
  r.run_seconds = f.Number(j, "", "run_seconds");
  if (f.Has(j, "", "phase_seconds")) {
    r.phase_seconds =
        results::PhaseSecondsFromJson(f, f.Member(j, "", "phase_seconds"), "phase_seconds");
  }
  if (f.Has(j, "", "budget")) {
    r.budget = results::RunBudgetFromJson(f, f.Member(j, "", "budget"), "budget");
  }
  const Json& m = f.Object(j, "", "machine");
  r.machine.load_start = f.Number(m, "machine", "load_start");
  r.machine.load_end = f.Number(m, "machine", "load_end");
  r.machine.steal_seconds = f.Number(m, "machine", "steal_seconds");
  r.machine.involuntary_switches = f.Int(m, "machine", "involuntary_switches", -1);
  if (const Json& ab = f.Member(j, "", "ab"); !ab.is_null()) {
    results::AbSession x;
    x.seed = f.Int(ab, "ab", "seed", 0);
    x.role = f.String(ab, "ab", "role");
    if (x.role != results::kAbOld && x.role != results::kAbNew) {
      f.Fail("ab.role", "expected \"old\" or \"new\", got '" + x.role + "'");
    }
    x.old_bin_dir = f.String(ab, "ab", "old_bin_dir");
    x.new_bin_dir = f.String(ab, "ab", "new_bin_dir");
    x.order = f.Strings(ab, "ab", "order");
    r.ab = x;
  }
  const Json& tricks = f.Array(j, "", "tricks");
  std::set<std::string> ids;
  for (size_t i = 0; i < tricks.size(); ++i) {
    const std::string p = JsonPath("tricks", i);
    const Json& tj = tricks[i];
    TrickReport t;
    t.id = f.String(tj, p, "id");
    if (!ids.insert(t.id).second) f.Fail(JsonPath(p, "id"), "duplicate trick id " + t.id);
    t.category = f.String(tj, p, "category");
    t.source = f.String(tj, p, "source");
    t.claim = f.String(tj, p, "claim");
    if (tj.contains("expectations")) {
      t.has_expectations_field = true;
      t.expectations = results::ExpectationsFromJson(f, tj, p);
      if (tj.contains("expectations_from_words")) {
        t.expectations_from_words = f.Bool(tj, p, "expectations_from_words");
      }
    }
    const std::string outcome = f.String(tj, p, "outcome");
    const auto parsed = results::ParseRunOutcome(outcome);
    if (!parsed) f.Fail(JsonPath(p, "outcome"), "unknown outcome '" + outcome + "'");
    t.outcome = *parsed;
    t.reason = f.String(tj, p, "reason");
    t.device = f.String(tj, p, "device");
    t.process_notes = f.Strings(tj, p, "process_notes");
    // Optional (reports from before it was kept): absent reads as none.
    if (tj.contains("process_seconds")) {
      t.process_seconds =
          Times(f, f.Array(tj, p, "process_seconds"), JsonPath(p, "process_seconds"));
    }
    const Json& s = f.Object(tj, p, "settings");
    t.processes = static_cast<int>(f.Int(s, JsonPath(p, "settings"), "processes", 0));
    t.rounds = static_cast<int>(f.Int(s, JsonPath(p, "settings"), "rounds", 0));
    t.threads = static_cast<int>(f.Int(s, JsonPath(p, "settings"), "threads", 0));
    t.min_time = f.Number(s, JsonPath(p, "settings"), "min_time");
    t.seed = static_cast<uint64_t>(f.Int(s, JsonPath(p, "settings"), "seed", 0));
    const Json& tol = f.Object(tj, p, "tolerance");
    t.tolerance.rtol = f.Number(tol, JsonPath(p, "tolerance"), "rtol");
    t.tolerance.atol = f.Number(tol, JsonPath(p, "tolerance"), "atol");
    f.Bool(tol, JsonPath(p, "tolerance"), "bitwise");  // derived: the figures decide
    t.reproduced_variant = f.String(tj, p, "reproduced_variant");
    const Json& rep = f.Member(tj, p, "reproducibility");
    if (!rep.is_null()) {
      const std::string rp = JsonPath(p, "reproducibility");
      results::Reproducibility x;
      x.checked = f.Bool(rep, rp, "checked");
      x.bitwise_reproducible = f.Bool(rep, rp, "bitwise_reproducible");
      x.fingerprint = f.String(rep, rp, "fingerprint");
      x.detail = f.String(rep, rp, "detail");
      t.reproducibility = x;
    }
    const Json& vs = f.Array(tj, p, "variants");
    for (size_t vi = 0; vi < vs.size(); ++vi) {
      const std::string vp = JsonPath(JsonPath(p, "variants"), vi);
      Variant v;
      v.case_name = f.String(vs[vi], vp, "case");
      v.name = f.String(vs[vi], vp, "name");
      v.baseline = f.Bool(vs[vi], vp, "baseline");
      v.samples_ns = Times(f, f.Array(vs[vi], vp, "samples_ns"), JsonPath(vp, "samples_ns"));
      if (t.outcome == results::RunOutcome::kOk && v.samples_ns.empty())
        f.Fail(JsonPath(vp, "samples_ns"), "empty");
      v.process_medians_ns =
          Times(f, f.Array(vs[vi], vp, "process_medians_ns"), JsonPath(vp, "process_medians_ns"));
      const Json& lr = f.Array(vs[vi], vp, "log_ratios");
      for (size_t k = 0; k < lr.size(); ++k) {
        const std::string lp = JsonPath(JsonPath(vp, "log_ratios"), k);
        if (!lr[k].is_array()) f.Fail(lp, "expected an array, got " + results::TypeName(lr[k]));
        std::vector<double> process;
        for (size_t q = 0; q < lr[k].size(); ++q) process.push_back(f.NumberAt(lr[k], lp, q));
        v.log_ratios.push_back(std::move(process));
      }
      if (!v.baseline && t.outcome == results::RunOutcome::kOk &&
          std::none_of(v.log_ratios.begin(), v.log_ratios.end(),
                       [](const auto& x) { return !x.empty(); })) {
        f.Fail(JsonPath(vp, "log_ratios"),
               "no round (settings.rounds is " + std::to_string(t.rounds) + ")");
      }
      // Optional: reports written before the speed probe have none (compare then reads
      // that side as measured).
      if (vs[vi].contains("process_probe_ns")) {
        const std::string pp = JsonPath(vp, "process_probe_ns");
        const Json& probes = f.Array(vs[vi], vp, "process_probe_ns");
        for (size_t k = 0; k < probes.size(); ++k) {
          const double x = f.NumberAt(probes, pp, k);
          // 0: a process from before the probe.
          if (x < 0) f.Fail(JsonPath(pp, k), "negative time " + FormatFixed(x, 3));
          v.process_probe_ns.push_back(x);
        }
        if (v.process_probe_ns.size() != v.log_ratios.size()) {
          f.Fail(pp, "has " + std::to_string(v.process_probe_ns.size()) +
                         " values, log_ratios has " + std::to_string(v.log_ratios.size()) +
                         " processes");
        }
      }
      // Optional: reports written before it have none (compare then does not check).
      if (vs[vi].contains("process_iterations")) {
        const std::string ip = JsonPath(vp, "process_iterations");
        const Json& counts = f.Array(vs[vi], vp, "process_iterations");
        for (size_t k = 0; k < counts.size(); ++k) {
          v.process_iterations.push_back(f.IntAt(counts, ip, k, 1));
        }
      }
      v.faults_per_iteration = f.Number(vs[vi], vp, "faults_per_iteration");
      v.switches_per_sample = f.Number(vs[vi], vp, "switches_per_sample");
      v.host_ns_per_iteration = f.Number(vs[vi], vp, "host_ns_per_iteration");
      v.check =
          results::VariantCheckFromJson(f, f.Object(vs[vi], vp, "check"), JsonPath(vp, "check"));
      t.variants.push_back(std::move(v));
    }
    if (t.outcome == results::RunOutcome::kOk && t.variants.size() < 2) {
      f.Fail(JsonPath(p, "variants"), "an ok trick needs a baseline and another variant");
    }
    Analyze(&t);  // derived fields are recomputed from the raw samples
    r.tricks.push_back(std::move(t));
  }
  return r;
}

}  // namespace reports
}  // namespace trickbench
