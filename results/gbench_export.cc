#include "results/gbench_export.h"

#include <algorithm>
#include <map>
#include <vector>

#include "common/atomic_file.h"
#include "stats/summary.h"

namespace trickbench {
namespace results {
namespace {

// What Google Benchmark's counters would have held: the check's figures. The
// allocations are per check run, so per run they divide by the check's steps.
std::map<std::string, double> Counters(const VariantCheck& check, int check_steps) {
  std::map<std::string, double> c = check.counters;
  c["peak_bytes"] = static_cast<double>(check.peak_bytes);
  c["run_peak_bytes"] = static_cast<double>(check.run_peak_bytes);
  c["allocations_per_run"] = static_cast<double>(check.allocations) / std::max(1, check_steps);
  return c;
}

Json Entry(const std::string& name, int family, int reps) {
  return {{"name", name},     {"family_index", family}, {"per_family_instance_index", 0},
          {"run_name", name}, {"repetitions", reps},    {"threads", 1}};
}

void AddCaseEntries(const TrickResult& t, size_t ci, int* family, Json* out) {
  const CaseRounds& c = t.rounds[ci];
  const std::vector<VariantCheck>* checks =
      t.checks && ci < t.checks->size() ? &(*t.checks)[ci].variants : nullptr;
  for (size_t vi = 0; vi < t.variants.size(); ++vi, ++(*family)) {
    const std::string name = GoogleBenchmarkName(t.id, c.case_name, t.variants[vi]);
    const auto samples = c.Of(static_cast<int>(vi));
    const int reps = static_cast<int>(samples.size());
    std::map<std::string, double> counters;
    int64_t items_per_run = 0;
    if (checks && vi < checks->size()) {
      counters = Counters((*checks)[vi], t.settings.check_steps);
      items_per_run = (*checks)[vi].items_per_run;
    }
    std::vector<double> ns, cpu;
    for (const RoundSample* s : samples) {
      Json e = Entry(name, *family, reps);
      e["run_type"] = "iteration";
      e["repetition_index"] = s->round;
      e["iterations"] = s->iterations;
      e["real_time"] = s->ns_per_iteration;
      e["cpu_time"] = s->cpu_ns_per_iteration;
      e["time_unit"] = "ns";
      for (const auto& [k, v] : counters) e[k] = v;  // non-finite: null
      if (items_per_run > 0) {
        e["items_per_second"] = static_cast<double>(items_per_run) * 1e9 / s->ns_per_iteration;
      }
      out->push_back(std::move(e));
      ns.push_back(s->ns_per_iteration);
      cpu.push_back(s->cpu_ns_per_iteration);
    }
    if (ns.empty()) continue;
    const stats::Summary sn = stats::Summarize(ns), sc = stats::Summarize(cpu);
    const std::vector<std::pair<std::string, std::pair<double, double>>> aggregates = {
        {"mean", {sn.mean, sc.mean}},
        {"median", {sn.median, sc.median}},
        {"stddev", {sn.stddev, sc.stddev}},
        {"cv", {sn.cv, sc.cv}}};
    for (const auto& [agg, values] : aggregates) {
      Json e = Entry(name + "_" + agg, *family, reps);
      e["run_name"] = name;
      e["run_type"] = "aggregate";
      e["aggregate_name"] = agg;
      e["aggregate_unit"] = agg == "cv" ? "percentage" : "time";
      e["iterations"] = reps;
      e["real_time"] = values.first;
      e["cpu_time"] = values.second;
      e["time_unit"] = "ns";
      out->push_back(std::move(e));
    }
  }
}

}  // namespace

std::string GoogleBenchmarkName(const std::string& trick_id, const std::string& case_name,
                                const std::string& variant) {
  std::string name = "BM_" + trick_id;
  if (!case_name.empty()) name += "/" + case_name;
  return name + "/" + variant;
}

Json GoogleBenchmarkJson(const ResultFile& record) {
  const TrickResult& t = record.trickbench;
  Json benchmarks = Json::array();
  if (t.status == ResultStatus::kOk) {
    int family = 0;
    for (size_t ci = 0; ci < t.rounds.size(); ++ci) AddCaseEntries(t, ci, &family, &benchmarks);
  } else if (t.status == ResultStatus::kError) {
    const std::string name = "BM_" + t.id;
    benchmarks.push_back({{"name", name},
                          {"run_name", name},
                          {"run_type", "iteration"},
                          {"error_occurred", true},
                          {"error_message", t.reason}});
  }
  return {{"context", record.context}, {"benchmarks", std::move(benchmarks)}};
}

std::string GoogleBenchmarkExportPath(const std::string& record_path) {
  const std::string suffix = ".json";
  if (record_path.size() > suffix.size() &&
      record_path.compare(record_path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return record_path.substr(0, record_path.size() - suffix.size()) + ".gbench.json";
  }
  return record_path + ".gbench.json";
}

bool WriteGoogleBenchmarkExport(const std::string& path, const ResultFile& record,
                                std::string* error) {
  return WriteFileAtomically(path, GoogleBenchmarkJson(record).dump(2) + "\n", error);
}

}  // namespace results
}  // namespace trickbench
