// Test-only run folders with paired rounds (schema 2 result files, a schema 3 index),
// built from seeded simulations (stats/simulation.h), so a test knows the truth.
//
//   stats::Scenario sc;
//   sc.true_log_speedup = std::log(1.2);
//   SimulatedTrick alpha{"alpha", stats::Simulate(sc, 1)};
//   const std::string dir = WriteSimulatedRun(ScratchDir("run"), {alpha});
//   const Report r = MergeRun(dir);   // alpha: processes 4, speedup near 1.2x
//
// Each process of the experiment becomes one result file (<id>.p<k>.json) with one
// case, variants "baseline" and "optimized", and one round per simulated round.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <map>
#include <string>
#include <vector>

#include "results/result_file.h"
#include "results/run_index.h"
#include "stats/simulation.h"

namespace trickbench {
namespace reports {
namespace testing {

struct SimulatedTrick {
  std::string id;
  stats::Experiment experiment;  // log times in ns (stats/simulation.h): ns = exp(log time)
  double faults_per_iteration = 0;
  int64_t switches_per_sample = 0;
  // The claim as data (results::Expectation), and the checks' peak of each variant.
  std::vector<results::Expectation> expectations = {results::Expectation{.metric = "time"}};
  int64_t baseline_peak_bytes = 1024;
  int64_t optimized_peak_bytes = 1024;
  // Per process (0-based), in place of optimized_peak_bytes where given.
  std::vector<int64_t> optimized_peak_by_process;
  // The checks' counters of each variant (the trick's Counters()).
  std::map<std::string, double> baseline_counters, optimized_counters;
  // Per process (0-based): every sample's probe_ns; 0 (a file from before the probe)
  // where not given.
  std::vector<double> probe_ns_by_process;
};

// Process `process` (0-based) of `trick` as a result file.
// WriteSimulatedRun writes every process of every trick and index.json (processes = the
// largest count, `ab` and `machine` as given) into `dir`; returns `dir`.
// Header-only: test code, which no build of the product compiles.
inline results::ResultFile SimulatedResult(const SimulatedTrick& trick, int process) {
  const auto& base = trick.experiment.baseline.at(static_cast<size_t>(process));
  const auto& variant = trick.experiment.variant.at(static_cast<size_t>(process));
  results::ResultFile r;
  r.context = {{"torch_version", "2.11.0"},
               {"device", "cpu"},
               {"cpu_cores", "2"},
               {"trickbench_id", trick.id}};
  results::TrickResult& t = r.trickbench;
  t.id = trick.id;
  t.category = "Kernels";
  t.source = "A1";
  t.claim = "faster";
  t.expectations = trick.expectations;
  t.status = results::ResultStatus::kOk;
  t.device = "cpu";
  t.baseline = "baseline";
  t.variants = {"baseline", "optimized"};
  t.cases = {""};
  t.reproduced_variant = "optimized";
  t.tolerance = {};  // bitwise
  t.settings.threads = 1;
  t.settings.rounds = static_cast<int>(base.size());
  t.settings.min_time = 0.01;
  t.settings.seed = 7;
  t.settings.timing = "wall_clock";
  t.settings.process = process + 1;
  results::CaseChecks checks{"", {}};
  for (const std::string& v : t.variants) {
    results::VariantCheck c;
    c.name = v;
    c.equivalent = true;
    c.active = true;
    c.peak_bytes = v == "baseline" ? trick.baseline_peak_bytes
                   : static_cast<size_t>(process) < trick.optimized_peak_by_process.size()
                       ? trick.optimized_peak_by_process[static_cast<size_t>(process)]
                       : trick.optimized_peak_bytes;
    c.counters = v == "baseline" ? trick.baseline_counters : trick.optimized_counters;
    checks.variants.push_back(c);
  }
  t.checks = std::vector<results::CaseChecks>{checks};
  results::CaseRounds rounds;
  rounds.order_seed = 11;
  rounds.iterations = {10, 10};
  for (size_t k = 0; k < base.size(); ++k) {
    for (int v = 0; v < 2; ++v) {
      results::RoundSample s;
      s.round = static_cast<int>(k);
      s.position = v;
      s.variant = v;
      s.start_seconds = 0.02 * static_cast<double>(2 * k + v);
      s.iterations = 10;
      s.ns_per_iteration = std::exp(v == 0 ? base[k] : variant[k]);
      s.cpu_ns_per_iteration = s.ns_per_iteration;
      s.involuntary_switches = trick.switches_per_sample;
      s.minor_faults_per_iteration = trick.faults_per_iteration;
      if (static_cast<size_t>(process) < trick.probe_ns_by_process.size())
        s.probe_ns = trick.probe_ns_by_process[static_cast<size_t>(process)];
      rounds.samples.push_back(s);
    }
  }
  t.rounds.push_back(rounds);
  return r;
}

inline std::string WriteSimulatedRun(const std::string& dir,
                                     const std::vector<SimulatedTrick>& tricks,
                                     const std::optional<results::AbSession>& ab = std::nullopt,
                                     const results::MachineState& machine = {}) {
  results::RunIndex index;
  index.started = "2026-01-01T00:00:00Z";
  index.finished = "2026-01-01T00:10:00Z";
  index.complete = true;
  index.out_dir = dir;
  index.timeout_seconds = 300;
  index.machine = machine;
  index.ab = ab;
  index.processes = 1;
  std::string error;
  // Round-robin over the tricks, as run_all spreads processes across the run.
  for (size_t p = 0;; ++p) {
    bool any = false;
    for (const auto& trick : tricks) {
      if (p >= trick.experiment.baseline.size()) continue;
      any = true;
      index.processes = std::max(index.processes, static_cast<int>(p) + 1);
      const std::string name = trick.id + ".p" + std::to_string(p + 1);
      if (!results::WriteResultFile(dir + "/" + name + ".json",
                                    SimulatedResult(trick, static_cast<int>(p)), &error)) {
        throw std::runtime_error(error);
      }
      index.tricks.push_back({trick.id, results::RunOutcome::kOk, "", 0, 30, name + ".json",
                              name + ".log", static_cast<int>(p) + 1});
    }
    if (!any) break;
  }
  if (!results::WriteRunIndex(dir + "/index.json", index, &error)) throw std::runtime_error(error);
  return dir;
}

// A quiet machine: `processes` processes of 15 rounds, little spread between processes
// and rounds, no slow tails; merge_test and grading_test simulate their runs on it.
inline stats::Scenario QuietScenario(int processes, double speedup) {
  stats::Scenario sc;
  sc.processes = processes;
  sc.rounds = 15;
  sc.true_log_speedup = std::log(speedup);
  sc.process_effect_sd = 0.005;
  sc.round_sd = 0.01;
  sc.tail_probability = 0;
  return sc;
}

}  // namespace testing
}  // namespace reports
}  // namespace trickbench
