#include "reports/load.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "reports/analyze.h"
#include "reports/report_json.h"
#include "reports/run_environment.h"
#include "results/result_file.h"
#include "results/run_index.h"
#include "stats/summary.h"

namespace trickbench {
namespace reports {
namespace {

namespace fs = std::filesystem;
using results::InputError;

// One process's peak memory of `v`, from its checks (matched by case and name).
void AddPeaks(Variant* v, const results::TrickResult& r) {
  for (const results::CaseChecks& c : r.checks.value_or(std::vector<results::CaseChecks>{})) {
    if (c.case_name != v->case_name) continue;
    for (const results::VariantCheck& x : c.variants) {
      if (x.name != v->name) continue;
      const auto device = x.counters.find("cuda_peak_allocated_bytes");
      v->process_peak_bytes.push_back(static_cast<double>(x.peak_bytes));
      v->process_device_peak_bytes.push_back(device == x.counters.end() ? std::nan("")
                                                                        : device->second);
      return;
    }
  }
}

// One process's measurements, appended to the trick's variants (matched by case and
// name): its samples, its median, its per-round log ratios and its peak memory.
void AddProcess(TrickReport* t, const results::ResultFile& file) {
  const results::TrickResult& r = file.trickbench;
  ++t->processes;
  if (!r.rounds.empty()) t->rounds = std::max(1, r.settings.rounds);
  for (Variant& v : t->variants) {
    const auto name = std::find(r.variants.begin(), r.variants.end(), v.name);
    const auto rounds = std::find_if(r.rounds.begin(), r.rounds.end(),
                                     [&](const auto& c) { return c.case_name == v.case_name; });
    if (name == r.variants.end() || rounds == r.rounds.end()) continue;
    const int index = static_cast<int>(name - r.variants.begin());
    AddPeaks(&v, r);
    v.process_iterations.push_back(rounds->iterations[index]);
    std::vector<double> mine, probes;
    double faults = 0, switches = 0, host = 0;
    for (const results::RoundSample* x : rounds->Of(index)) {
      mine.push_back(x->ns_per_iteration);
      probes.push_back(x->probe_ns);
      host += x->host_ns_per_iteration;
      faults += x->minor_faults_per_iteration;
      switches += static_cast<double>(x->involuntary_switches);
    }
    if (!v.baseline) {
      v.log_ratios.push_back(rounds->LogRatios(index));
      // A file from before the probe reads 0 in every sample: its median is 0 too.
      v.process_probe_ns.push_back(probes.empty() ? 0 : stats::Median(probes));
    }
    if (mine.empty()) continue;
    // Running means over every process's samples.
    const double before = static_cast<double>(v.samples_ns.size());
    const double total = before + static_cast<double>(mine.size());
    v.faults_per_iteration = (v.faults_per_iteration * before + faults) / total;
    v.switches_per_sample = (v.switches_per_sample * before + switches) / total;
    v.host_ns_per_iteration = (v.host_ns_per_iteration * before + host) / total;
    v.process_medians_ns.push_back(stats::Median(mine));
    v.samples_ns.insert(v.samples_ns.end(), mine.begin(), mine.end());
  }
}

// The report's view of a result file: its raw fields (checks, settings), and its
// samples as the trick's first process.
TrickReport TrickOf(const results::ResultFile& file) {
  const results::TrickResult& r = file.trickbench;
  TrickReport t;
  t.id = r.id;
  t.category = r.category;
  t.source = r.source;
  t.claim = r.claim;
  t.expectations = r.expectations;
  t.has_expectations_field = r.has_expectations;
  t.outcome = results::OutcomeOf(r.status);
  t.reason = r.reason;
  t.device = r.device;
  t.threads = r.settings.threads;
  t.min_time = r.settings.min_time;
  t.seed = r.settings.seed;
  t.tolerance = r.tolerance;
  t.reproduced_variant = r.reproduced_variant;
  t.reproducibility = r.reproducibility;
  for (const results::CaseChecks& c : r.checks.value_or(std::vector<results::CaseChecks>{})) {
    for (size_t i = 0; i < c.variants.size(); ++i) {
      Variant v;
      v.case_name = c.case_name;
      v.name = c.variants[i].name;
      v.baseline = i == 0;
      v.check = c.variants[i];
      t.variants.push_back(std::move(v));
    }
  }
  AddProcess(&t, file);
  return t;
}

// One trick from its processes' index entries. The index's outcome wins over a result
// file's status (run_all saw the process: a crash after writing is a crash). A failed
// check in any process makes the trick invalid (it is about the trick, not the
// machine); other failures leave that process out, noted, when another one measured.
TrickReport MergeProcesses(const std::string& run_dir,
                           const std::vector<const results::IndexEntry*>& entries,
                           std::vector<FileEnvironment>* environments) {
  const auto read = [&](const results::IndexEntry& e, std::string* file) {
    *file = (fs::path(run_dir) / *e.result).string();
    results::ResultFile result = results::ReadResultFile(*file);
    if (result.trickbench.id != e.id) {
      throw InputError(*file, "trickbench.id",
                       "is " + result.trickbench.id + " but index.json says " + e.id);
    }
    environments->push_back({e.id, e.process, results::Environment(result)});
    return result;
  };
  const auto with_outcome = [](TrickReport t, const results::IndexEntry& e) {
    if (e.outcome != t.outcome || !e.reason.empty()) {
      t.outcome = e.outcome;
      t.reason = e.reason;
    }
    return t;
  };
  const auto first_of = [&](results::RunOutcome o) -> const results::IndexEntry* {
    for (const auto* e : entries) {
      if (e->outcome == o) return e;
    }
    return nullptr;
  };
  const results::IndexEntry* decisive = first_of(results::RunOutcome::kInvalid);
  if (!decisive && !first_of(results::RunOutcome::kOk)) decisive = entries.front();
  if (decisive) {
    TrickReport t;
    t.id = decisive->id;
    std::string file;
    if (decisive->result) t = TrickOf(read(*decisive, &file));
    t = with_outcome(std::move(t), *decisive);
    if (entries.size() > 1) {
      t.process_notes.push_back("process " + std::to_string(decisive->process) + " of " +
                                std::to_string(entries.size()) + " decided the outcome");
    }
    return t;
  }
  TrickReport t;
  bool first = true;
  for (const auto* e : entries) {
    if (e->outcome != results::RunOutcome::kOk || !e->result) {
      t.process_notes.push_back("process " + std::to_string(e->process) + ": " +
                                results::Name(e->outcome) +
                                (e->reason.empty() ? "" : ": " + e->reason) + " (left out)");
      continue;
    }
    std::string file;
    const results::ResultFile result = read(*e, &file);
    if (first) {
      auto notes = std::move(t.process_notes);
      t = with_outcome(TrickOf(result), *e);
      t.process_notes = std::move(notes);
      if (result.trickbench.checks_memory_only) {
        // Its "equivalent" and "in effect" are process 1's, which is not in this report.
        t.process_notes.push_back("process " + std::to_string(e->process) +
                                  " checked memory only: equivalence and in effect are "
                                  "process 1's, left out, so not confirmed by this report");
      }
      first = false;
    } else {
      AddProcess(&t, result);
    }
    t.process_seconds.push_back(e->seconds);
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
    throw InputError(file, "trickbench", results::kGoogleBenchmarkFileMessage);
  }
  throw InputError(file, "kind", "missing (neither a report, a run index nor a trick result)");
}

TrickReport TrickFromResult(const results::Json& result, const std::string& file,
                            std::map<std::string, std::string>* environment) {
  const results::ResultFile r = results::ResultFile::FromJson(result, file);
  if (environment) *environment = results::Environment(r);
  TrickReport t = TrickOf(r);
  Analyze(&t);
  return t;
}

Report MergeRun(const std::string& run_dir) {
  if (!fs::is_directory(run_dir))
    throw InputError(run_dir, "", "not a folder (expected a run folder)");
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
  report.processes = index.processes;
  report.machine = index.machine;
  report.ab = index.ab;
  report.budget = index.budget;
  // The index has one entry per process; a trick's processes are grouped, in the order
  // of each trick's first process.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const results::IndexEntry*>> by_id;
  for (const results::IndexEntry& entry : index.tricks) {
    report.run_seconds += entry.seconds;
    if (entry.phase_seconds) {
      if (!report.phase_seconds) report.phase_seconds.emplace();
      *report.phase_seconds += *entry.phase_seconds;
    }
    auto& group = by_id[entry.id];
    if (group.empty()) order.push_back(entry.id);
    group.push_back(&entry);
  }
  std::vector<FileEnvironment> environments;
  for (const std::string& id : order) {
    auto& group = by_id[id];
    std::stable_sort(group.begin(), group.end(),
                     [](const auto* a, const auto* b) { return a->process < b->process; });
    TrickReport t = MergeProcesses(run_dir, group, &environments);
    Analyze(&t);
    report.tricks.push_back(std::move(t));
  }
  ReconcileEnvironments(environments, &report);
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
