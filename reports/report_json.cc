#include "reports/report_json.h"

#include <cmath>
#include <limits>
#include <set>

#include "reports/analyze.h"
#include "reports/format.h"

namespace trickbench {
namespace reports {
namespace {

using results::Fields;
using results::Json;
using results::JsonPath;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

Json VariantJson(const Variant& v) {
  return {{"case", v.case_name},
          {"name", v.name},
          {"benchmark", v.benchmark},
          {"baseline", v.baseline},
          {"samples_ns", v.samples_ns},
          {"repetitions", v.samples_ns.size()},
          {"median_ns", v.median},
          {"q1_ns", v.q1},
          {"q3_ns", v.q3},
          {"iqr_ns", v.iqr},
          {"mean_ns", v.mean},
          {"stddev_ns", v.stddev},
          {"cv", v.cv},
          {"relative_iqr", v.relative_iqr},
          {"noisy", v.noisy},
          {"peak_bytes", v.peak_bytes},
          {"run_peak_bytes", v.run_peak_bytes},
          {"allocations", v.allocations},
          {"equivalent", v.equivalent},
          {"max_abs_diff", v.max_abs_diff},
          {"max_rel_diff", v.max_rel_diff},
          {"equivalence_detail", v.equivalence_detail},
          {"active", v.active},
          {"inactive_reason", v.inactive_reason}};
}

Json EffectJson(const VariantEffect& c) {
  return {{"case", c.case_name},
          {"variant", c.variant},
          {"baseline", c.baseline},
          {"timed", c.timed},
          {"speedup", c.speedup},
          {"ci_low", c.ci_low},
          {"ci_high", c.ci_high},
          {"p_value", c.p_value},
          {"significant", c.significant},
          {"noisy", c.noisy},
          {"peak_bytes_baseline", c.peak_bytes_baseline},
          {"peak_bytes_variant", c.peak_bytes_variant},
          {"memory_change", c.memory_change ? Json(*c.memory_change) : Json(nullptr)},
          {"verdict", VerdictName(c.verdict)},
          {"verdict_detail", c.verdict_detail},
          {"repetitions_to_settle",
           c.repetitions_to_settle ? Json(*c.repetitions_to_settle) : Json(nullptr)}};
}

}  // namespace

Json ReportToJson(const Report& r) {
  Json tricks = Json::array();
  for (const Trick& t : r.tricks) {
    Json variants = Json::array(), comparisons = Json::array();
    for (const auto& v : t.variants) variants.push_back(VariantJson(v));
    for (const auto& c : t.effects) comparisons.push_back(EffectJson(c));
    Json rep = nullptr;
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
                      {"outcome", results::Name(t.outcome)},
                      {"reason", t.reason},
                      {"verdict", VerdictName(t.verdict)},
                      {"verdict_detail", t.verdict_detail},
                      {"noisy", t.noisy},
                      {"device", t.device},
                      {"settings",
                       {{"threads", t.threads},
                        {"repetitions", t.repetitions},
                        {"min_time", t.min_time},
                        {"seed", t.seed}}},
                      {"tolerance", {{"rtol", t.rtol}, {"atol", t.atol}, {"bitwise", t.bitwise}}},
                      {"reproduced_variant", t.reproduced_variant},
                      {"reproducibility", rep},
                      {"variants", variants},
                      {"comparisons", comparisons}});
  }
  const ReportCounts n = Count(r);
  Json env = Json::object();
  for (const auto& [k, v] : r.environment) env[k] = v;
  return {{"kind", kReportKind},
          {"schema_version", kReportSchemaVersion},
          {"source", r.source},
          {"started", r.started},
          {"finished", r.finished},
          {"complete", r.complete},
          {"forwarded_flags", r.forwarded_flags},
          {"statistics",
           {{"test", "Mann-Whitney U, two-sided (scipy method auto, as Google Benchmark compare.py)"},
            {"alpha", kAlpha},
            {"interval", "Hodges-Lehmann distribution-free interval of the time ratio"},
            {"confidence", 1 - kAlpha},
            {"noise", "relative IQR (IQR / median) of either variant above the threshold"},
            {"noise_threshold", kNoiseThreshold},
            {"no_effect_band", kNoEffectBand}}},
          {"environment", env},
          {"environment_notes", r.environment_notes},
          {"summary",
           {{"tricks", n.tricks},
            {"holds", n.holds},
            {"does_not_hold", n.does_not_hold},
            {"inconclusive", n.inconclusive},
            {"not_applicable", n.not_applicable},
            {"noisy", n.noisy}}},
          {"tricks", tricks}};
}

Report ReportFromJson(const Json& j, const std::string& file) {
  const Fields f(file);
  if (const std::string kind = f.String(j, "", "kind"); kind != kReportKind) {
    f.Fail("kind", "expected \"" + std::string(kReportKind) + "\", got \"" + kind + "\"");
  }
  f.Version(j, "", kReportSchemaVersion);
  Report r;
  r.source = f.String(j, "", "source");
  r.started = f.String(j, "", "started");
  r.finished = f.String(j, "", "finished");
  r.complete = f.Bool(j, "", "complete");
  r.forwarded_flags = f.Strings(j, "", "forwarded_flags");
  for (const auto& [k, v] : f.Object(j, "", "environment").items()) {
    if (!v.is_string()) f.Fail("environment." + k, "expected a string, got " + results::TypeName(v));
    r.environment[k] = v.get<std::string>();
  }
  r.environment_notes = f.Strings(j, "", "environment_notes");
  const Json& tricks = f.Array(j, "", "tricks");
  std::set<std::string> ids;
  for (size_t i = 0; i < tricks.size(); ++i) {
    const std::string p = JsonPath("tricks", i);
    const Json& tj = tricks[i];
    Trick t;
    t.id = f.String(tj, p, "id");
    if (!ids.insert(t.id).second) f.Fail(JsonPath(p, "id"), "duplicate trick id " + t.id);
    t.category = f.String(tj, p, "category");
    t.source = f.String(tj, p, "source");
    t.claim = f.String(tj, p, "claim");
    const std::string outcome = f.String(tj, p, "outcome");
    const auto parsed = results::ParseRunOutcome(outcome);
    if (!parsed) f.Fail(JsonPath(p, "outcome"), "unknown outcome '" + outcome + "'");
    t.outcome = *parsed;
    t.reason = f.String(tj, p, "reason");
    t.device = f.String(tj, p, "device");
    const Json& s = f.Object(tj, p, "settings");
    t.threads = static_cast<int>(f.Int(s, JsonPath(p, "settings"), "threads", 0));
    t.repetitions = static_cast<int>(f.Int(s, JsonPath(p, "settings"), "repetitions", 0));
    t.min_time = f.Number(s, JsonPath(p, "settings"), "min_time");
    t.seed = static_cast<uint64_t>(f.Int(s, JsonPath(p, "settings"), "seed", 0));
    const Json& tol = f.Object(tj, p, "tolerance");
    t.rtol = f.Number(tol, JsonPath(p, "tolerance"), "rtol");
    t.atol = f.Number(tol, JsonPath(p, "tolerance"), "atol");
    t.bitwise = f.Bool(tol, JsonPath(p, "tolerance"), "bitwise");
    t.reproduced_variant = f.String(tj, p, "reproduced_variant");
    const Json& rep = f.Member(tj, p, "reproducibility");
    if (!rep.is_null()) {
      const std::string rp = JsonPath(p, "reproducibility");
      Reproducibility x;
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
      v.benchmark = f.String(vs[vi], vp, "benchmark");
      v.baseline = f.Bool(vs[vi], vp, "baseline");
      const Json& samples = f.Array(vs[vi], vp, "samples_ns");
      for (size_t k = 0; k < samples.size(); ++k) {
        const std::string sp = JsonPath(JsonPath(vp, "samples_ns"), k);
        if (!samples[k].is_number()) f.Fail(sp, "expected a number, got " + results::TypeName(samples[k]));
        const double x = samples[k].get<double>();
        if (!std::isfinite(x)) f.Fail(sp, "not a finite number");
        if (x <= 0) f.Fail(sp, (x < 0 ? "negative time " : "zero time ") + FormatFixed(x, 3));
        v.samples_ns.push_back(x);
      }
      if (t.outcome == results::RunOutcome::kOk && v.samples_ns.empty()) f.Fail(JsonPath(vp, "samples_ns"), "empty");
      v.peak_bytes = f.Int(vs[vi], vp, "peak_bytes", 0);
      v.run_peak_bytes = f.Int(vs[vi], vp, "run_peak_bytes");
      v.allocations = f.Int(vs[vi], vp, "allocations", 0);
      v.equivalent = f.Bool(vs[vi], vp, "equivalent");
      // Not finite (NaN against a number) is written as null, as in the result file.
      v.max_abs_diff = f.NumberOrNull(vs[vi], vp, "max_abs_diff", kInfinity);
      v.max_rel_diff = f.NumberOrNull(vs[vi], vp, "max_rel_diff", kInfinity);
      v.equivalence_detail = f.String(vs[vi], vp, "equivalence_detail");
      v.active = f.Bool(vs[vi], vp, "active");
      v.inactive_reason = f.String(vs[vi], vp, "inactive_reason");
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
