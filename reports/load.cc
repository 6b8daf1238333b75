#include "reports/load.h"

#include <filesystem>
#include <set>
#include <vector>

#include "reports/analyze.h"
#include "reports/report_json.h"
#include "results/result_file.h"
#include "results/run_index.h"

namespace trickbench {
namespace reports {
namespace {

namespace fs = std::filesystem;
using results::InputError;

// The report's view of a result file: its raw fields (samples, checks, settings).
Trick TrickOf(const results::ResultFile& file, const std::string& path) {
  const results::TrickResult& r = file.trickbench;
  Trick t;
  t.id = r.id;
  t.category = r.category;
  t.source = r.source;
  t.claim = r.claim;
  t.outcome = results::OutcomeOf(r.status);
  t.reason = r.reason;
  t.device = r.device;
  t.threads = r.settings.threads;
  t.repetitions = r.settings.repetitions;
  t.min_time = r.settings.min_time;
  t.seed = r.settings.seed;
  t.rtol = r.tolerance.rtol;
  t.atol = r.tolerance.atol;
  t.bitwise = r.tolerance.bitwise;
  t.reproduced_variant = r.reproduced_variant;
  if (r.reproducibility) {
    t.reproducibility = Reproducibility{r.reproducibility->checked,
                                        r.reproducibility->bitwise_reproducible,
                                        r.reproducibility->fingerprint, r.reproducibility->detail};
  }
  const auto samples = results::SamplesNs(file.benchmarks, path);
  for (const results::CaseChecks& c : r.checks.value_or(std::vector<results::CaseChecks>{})) {
    for (size_t i = 0; i < c.variants.size(); ++i) {
      const results::VariantCheck& check = c.variants[i];
      Variant v;
      v.case_name = c.case_name;
      v.name = check.name;
      v.benchmark = check.benchmark;
      v.baseline = i == 0;
      if (const auto it = samples.find(check.benchmark); it != samples.end()) v.samples_ns = it->second;
      v.peak_bytes = check.peak_bytes;
      v.run_peak_bytes = check.run_peak_bytes;
      v.allocations = check.allocations;
      v.equivalent = check.equivalent;
      v.active = check.active;
      v.max_abs_diff = check.max_abs_diff;
      v.max_rel_diff = check.max_rel_diff;
      v.equivalence_detail = check.equivalence_detail;
      v.inactive_reason = check.inactive_reason;
      t.variants.push_back(std::move(v));
    }
  }
  return t;
}

}  // namespace

std::string KindOf(const results::Json& j, const std::string& file) {
  if (!j.is_object()) {
    throw InputError(file, "", "expected a JSON object, got " + results::TypeName(j));
  }
  const auto kind = j.find("kind");
  if (kind != j.end()) {
    if (!kind->is_string()) {
      throw InputError(file, "kind", "expected a string, got " + results::TypeName(*kind));
    }
    if (*kind == kReportKind) return "report";
    if (*kind == results::kIndexKind) return "index";
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

Trick TrickFromResult(const results::Json& result, const std::string& file,
                      std::map<std::string, std::string>* environment) {
  const results::ResultFile r = results::ResultFile::FromJson(result, file);
  if (environment) *environment = results::Environment(r);
  Trick t = TrickOf(r, file);
  Analyze(&t);
  return t;
}

Report MergeRun(const std::string& run_dir) {
  if (!fs::is_directory(run_dir)) throw InputError(run_dir, "", "not a folder (expected a run folder)");
  const std::string index_path = (fs::path(run_dir) / "index.json").string();
  const results::RunIndex index = results::ReadRunIndex(index_path);
  // results/ accepts an empty index (a run stopped before its first trick); a report
  // of nothing would only hide that.
  if (index.tricks.empty()) throw InputError(index_path, "tricks", "empty (no trick in this run)");
  Report report;
  report.source = fs::path(run_dir).lexically_normal().filename().string();
  if (report.source.empty()) report.source = fs::path(run_dir).parent_path().filename().string();
  report.started = index.started;
  report.finished = index.finished.value_or("");
  report.complete = index.complete;
  report.forwarded_flags = index.forwarded_flags;
  bool have_environment = false;
  std::string environment_from;
  for (const results::IndexEntry& entry : index.tricks) {
    Trick t;
    if (entry.result) {
      const std::string file = (fs::path(run_dir) / *entry.result).string();
      const results::ResultFile result = results::ReadResultFile(file);
      t = TrickOf(result, file);
      if (t.id != entry.id) {
        throw InputError(file, "trickbench.id", "is " + t.id + " but index.json says " + entry.id);
      }
      const auto env = results::Environment(result);
      if (!have_environment) {
        report.environment = env;
        environment_from = entry.id;
        have_environment = true;
      } else {
        for (const auto& [k, v] : env) {
          if (DescribesOneHost(k)) continue;
          const auto it = report.environment.find(k);
          if (it == report.environment.end() || it->second != v) {
            report.environment_notes.push_back(
                entry.id + ": " + k + "=" + v + " (" + environment_from + " has " +
                (it == report.environment.end() ? std::string("none") : it->second) + ")");
          }
        }
      }
    } else {
      t.id = entry.id;
    }
    if (entry.outcome != t.outcome || !entry.reason.empty()) {
      t.outcome = entry.outcome;  // run_all saw the process: a crash or timeout outranks the file
      t.reason = entry.reason;
    }
    Analyze(&t);
    report.tricks.push_back(std::move(t));
  }
  return report;
}

Report LoadReportOrResult(const std::string& path, std::string* kind) {
  const results::Json j = results::ReadJsonFile(path);
  const std::string k = KindOf(j, path);
  if (kind) *kind = k;
  if (k == "report") return ReportFromJson(j, path);
  if (k == "result") {
    Report r;
    r.source = fs::path(path).filename().string();
    r.tricks.push_back(TrickFromResult(j, path, &r.environment));
    return r;
  }
  throw InputError(path, "kind",
                   "a run index; give its report.json (bazel run //reports:report -- RUN_DIR) "
                   "or a trick's result file");
}

}  // namespace reports
}  // namespace trickbench
