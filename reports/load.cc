#include "reports/load.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <vector>

#include "reports/analyze.h"
#include "reports/format.h"
#include "reports/report_json.h"

namespace trickbench {
namespace reports {
namespace {

namespace fs = std::filesystem;

const std::set<std::string>& ResultStatuses() {
  static const std::set<std::string> s = {"ok", "skipped", "invalid", "error", "checked"};
  return s;
}

double NsPerUnit(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return 0;
}

}  // namespace

std::string KindOf(const Json& j, const std::string& file) {
  if (!j.is_object()) throw InputError(file, "", "expected a JSON object, got " + TypeName(j));
  const auto kind = j.find("kind");
  if (kind != j.end()) {
    if (!kind->is_string()) throw InputError(file, "kind", "expected a string, got " + TypeName(*kind));
    if (*kind == kReportKind) return "report";
    if (*kind == kIndexKind) return "index";
    throw InputError(file, "kind", "unknown kind '" + kind->get<std::string>() + "'");
  }
  if (j.contains("trickbench")) return "result";
  if (j.contains("benchmarks")) {
    throw InputError(file, "trickbench",
                     "missing (a plain Google Benchmark file; trickbench needs the result file a "
                     "trick binary writes)");
  }
  throw InputError(file, "kind", "missing (neither a report, a run index nor a trick result)");
}

Trick TrickFromResult(const Json& result, const std::string& file,
                      std::map<std::string, std::string>* environment) {
  const Fields f(file);
  const Json& context = f.Object(result, "", "context");
  const Json& benchmarks = f.Array(result, "", "benchmarks");
  const Json& tb = f.Object(result, "", "trickbench");
  f.Version(tb, "trickbench", kResultSchemaVersion);
  Trick t;
  t.id = f.String(tb, "trickbench", "id");
  if (t.id.empty()) f.Fail("trickbench.id", "empty");
  t.category = f.String(tb, "trickbench", "category");
  t.source = f.String(tb, "trickbench", "source");
  t.claim = f.String(tb, "trickbench", "claim");
  t.outcome = f.String(tb, "trickbench", "status");
  if (!ResultStatuses().count(t.outcome)) {
    f.Fail("trickbench.status", "unknown status '" + t.outcome + "'");
  }
  if (t.outcome == "checked") t.outcome = "ok";
  t.reason = f.String(tb, "trickbench", "reason");
  t.device = f.String(tb, "trickbench", "device");
  t.reproduced_variant = f.String(tb, "trickbench", "reproduced_variant");
  const std::string baseline = f.String(tb, "trickbench", "baseline");
  const auto variants = f.Strings(tb, "trickbench", "variants");
  if (variants.size() < 2) f.Fail("trickbench.variants", "needs a baseline and another variant");
  if (variants.front() != baseline) f.Fail("trickbench.baseline", "is not the first variant");
  f.Strings(tb, "trickbench", "cases");
  const Json& tol = f.Object(tb, "trickbench", "tolerance");
  t.rtol = f.Number(tol, "trickbench.tolerance", "rtol");
  t.atol = f.Number(tol, "trickbench.tolerance", "atol");
  t.bitwise = f.Bool(tol, "trickbench.tolerance", "bitwise");
  const Json& settings = f.Object(tb, "trickbench", "settings");
  t.threads = static_cast<int>(f.Int(settings, "trickbench.settings", "threads", 0));
  t.repetitions = static_cast<int>(f.Int(settings, "trickbench.settings", "repetitions", 0));
  t.min_time = f.Number(settings, "trickbench.settings", "min_time");
  t.seed = static_cast<uint64_t>(f.Int(settings, "trickbench.settings", "seed", 0));

  if (tb.contains("reproducibility")) {
    const Json& r = f.Object(tb, "trickbench", "reproducibility");
    Reproducibility rep;
    rep.checked = f.Bool(r, "trickbench.reproducibility", "checked");
    // Result files from before the fields were fixed omit them when nothing was checked.
    if (rep.checked || r.contains("bitwise_reproducible")) {
      rep.bitwise_reproducible = f.Bool(r, "trickbench.reproducibility", "bitwise_reproducible");
    }
    if (rep.checked || r.contains("fingerprint")) {
      rep.fingerprint = f.String(r, "trickbench.reproducibility", "fingerprint");
    }
    rep.detail = f.String(r, "trickbench.reproducibility", "detail");
    t.reproducibility = rep;
  }

  // Raw samples: every "iteration" run is one repetition.
  std::map<std::string, std::vector<double>> samples;
  for (size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = JsonPath("benchmarks", i);
    const Json& b = benchmarks[i];
    const std::string name = f.String(b, path, "name");
    const std::string run_type = f.String(b, path, "run_type");
    if (run_type != "iteration") continue;
    if (b.contains("error_occurred") && f.Bool(b, path, "error_occurred")) continue;
    const double time = f.Number(b, path, "real_time");
    if (time < 0) f.Fail(JsonPath(path, "real_time"), "negative time " + FormatFixed(time, 3));
    if (time == 0) f.Fail(JsonPath(path, "real_time"), "zero time (a ratio needs positive times)");
    const std::string unit = f.String(b, path, "time_unit");
    if (NsPerUnit(unit) == 0) f.Fail(JsonPath(path, "time_unit"), "unknown unit '" + unit + "'");
    const std::string run_name = b.contains("run_name") ? f.String(b, path, "run_name") : name;
    const double ns = time * NsPerUnit(unit);
    if (!std::isfinite(ns) || !(ns > 0)) f.Fail(JsonPath(path, "real_time"), "out of range in ns");
    samples[run_name].push_back(ns);
  }
  if (t.outcome == "ok" && benchmarks.empty()) {
    f.Fail("benchmarks", "empty benchmark list (status is ok, so there must be timings)");
  }
  if (t.outcome == "ok" && samples.empty()) {
    f.Fail("benchmarks", "no run_type \"iteration\" entry (no raw repetitions to analyse)");
  }

  const bool needs_checks = t.outcome == "ok" || t.outcome == "invalid";
  if (needs_checks || tb.contains("checks")) {
    const Json& cases = f.Array(tb, "trickbench", "checks");
    if (cases.empty() && needs_checks) f.Fail("trickbench.checks", "empty");
    std::set<std::string> seen;
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      const std::string cpath = JsonPath("trickbench.checks", ci);
      const std::string case_name = f.String(cases[ci], cpath, "case");
      const Json& vs = f.Array(cases[ci], cpath, "variants");
      if (vs.size() < 2) f.Fail(JsonPath(cpath, "variants"), "needs a baseline and another variant");
      for (size_t vi = 0; vi < vs.size(); ++vi) {
        const std::string vpath = JsonPath(JsonPath(cpath, "variants"), vi);
        Variant v;
        v.case_name = case_name;
        v.baseline = vi == 0;
        v.name = f.String(vs[vi], vpath, "name");
        v.benchmark = f.String(vs[vi], vpath, "benchmark");
        if (!seen.insert(v.benchmark).second) {
          f.Fail(JsonPath(vpath, "benchmark"), "duplicate benchmark name " + v.benchmark);
        }
        v.equivalent = f.Bool(vs[vi], vpath, "equivalent");
        v.max_abs_diff = f.Number(vs[vi], vpath, "max_abs_diff");
        v.max_rel_diff = f.Number(vs[vi], vpath, "max_rel_diff");
        v.equivalence_detail = f.String(vs[vi], vpath, "equivalence_detail");
        v.active = f.Bool(vs[vi], vpath, "active");
        v.inactive_reason = f.String(vs[vi], vpath, "inactive_reason");
        v.peak_bytes = f.Int(vs[vi], vpath, "peak_bytes", 0);
        v.run_peak_bytes = f.Int(vs[vi], vpath, "run_peak_bytes");
        v.allocations = f.Int(vs[vi], vpath, "allocations", 0);
        if (auto it = samples.find(v.benchmark); it != samples.end()) v.samples_ns = it->second;
        if (t.outcome == "ok" && v.samples_ns.empty()) {
          f.Fail(JsonPath(vpath, "benchmark"),
                 "no run_type \"iteration\" entry named " + v.benchmark + " in benchmarks");
        }
        t.variants.push_back(std::move(v));
      }
    }
  }
  if (environment) {
    for (const auto& [k, v] : context.items()) {
      if (k == "executable" || k == "date" || k == "caches" || k == "load_avg" ||
          k == "trickbench_id") {
        continue;
      }
      (*environment)[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  Analyze(&t);
  return t;
}

Report MergeRun(const std::string& run_dir) {
  const std::string index_path = (fs::path(run_dir) / "index.json").string();
  if (!fs::is_directory(run_dir)) throw InputError(run_dir, "", "not a folder (expected a run folder)");
  const Json index = ReadJsonFile(index_path);
  const Fields f(index_path);
  if (KindOf(index, index_path) != "index") {
    f.Fail("kind", "expected \"" + std::string(kIndexKind) + "\"");
  }
  f.Version(index, "", kIndexSchemaVersion);
  Report report;
  report.source = fs::path(run_dir).lexically_normal().filename().string();
  if (report.source.empty()) report.source = fs::path(run_dir).parent_path().filename().string();
  report.started = f.String(index, "", "started");
  report.finished = index.contains("finished") && index["finished"].is_string()
                        ? index["finished"].get<std::string>()
                        : "";
  report.complete = f.Bool(index, "", "complete");
  report.forwarded_flags = f.Strings(index, "", "forwarded_flags");
  const Json& tricks = f.Array(index, "", "tricks");
  if (tricks.empty()) f.Fail("tricks", "empty (no trick in this run)");
  std::set<std::string> ids;
  bool have_environment = false;
  std::string environment_from;
  for (size_t i = 0; i < tricks.size(); ++i) {
    const std::string path = JsonPath("tricks", i);
    const std::string id = f.String(tricks[i], path, "id");
    if (!ids.insert(id).second) f.Fail(JsonPath(path, "id"), "duplicate trick id " + id);
    const std::string outcome = f.String(tricks[i], path, "outcome");
    if (!IsOutcome(outcome)) f.Fail(JsonPath(path, "outcome"), "unknown outcome '" + outcome + "'");
    const std::string reason = f.String(tricks[i], path, "reason");
    const Json& result = f.Member(tricks[i], path, "result");
    Trick t;
    if (result.is_string()) {
      const std::string file = (fs::path(run_dir) / result.get<std::string>()).string();
      std::map<std::string, std::string> env;
      t = TrickFromResult(ReadJsonFile(file), file, &env);
      if (t.id != id) {
        throw InputError(file, "trickbench.id", "is " + t.id + " but index.json says " + id);
      }
      if (!have_environment) {
        report.environment = env;
        environment_from = id;
        have_environment = true;
      } else {
        for (const auto& [k, v] : env) {
          if (k == "host_name" || k == "mhz_per_cpu") continue;
          auto it = report.environment.find(k);
          if (it == report.environment.end() || it->second != v) {
            report.environment_notes.push_back(
                id + ": " + k + "=" + v + " (" + environment_from + " has " +
                (it == report.environment.end() ? std::string("none") : it->second) + ")");
          }
        }
      }
    } else if (result.is_null()) {
      t.id = id;
    } else {
      f.Fail(JsonPath(path, "result"), "expected a file name or null, got " + TypeName(result));
    }
    if (outcome != t.outcome || !reason.empty()) {
      t.outcome = outcome;  // run_all saw the process: a crash or timeout outranks the file
      t.reason = reason;
    }
    Analyze(&t);
    report.tricks.push_back(std::move(t));
  }
  return report;
}

Report LoadReportOrResult(const std::string& path, std::string* kind) {
  const Json j = ReadJsonFile(path);
  const std::string k = KindOf(j, path);
  if (kind) *kind = k;
  if (k == "report") return ReportFromJson(j, path);
  if (k == "result") {
    Report r;
    r.source = fs::path(path).filename().string();
    Trick t = TrickFromResult(j, path, &r.environment);
    r.tricks.push_back(std::move(t));
    return r;
  }
  throw InputError(path, "kind",
                   "a run index; give its report.json (bazel run //reports:report -- RUN_DIR) "
                   "or a trick's result file");
}

}  // namespace reports
}  // namespace trickbench
