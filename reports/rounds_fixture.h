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

#include <optional>
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
  stats::Experiment experiment;  // log times: ns = 1e6 * exp(log time)
  double faults_per_iteration = 0;
  int64_t switches_per_sample = 0;
};

// Process `process` (0-based) of `trick` as a result file.
results::ResultFile SimulatedResult(const SimulatedTrick& trick, int process);

// Writes every process of every trick and index.json (processes = the largest count,
// `ab` and `machine` as given) into `dir`; returns `dir`.
std::string WriteSimulatedRun(const std::string& dir, const std::vector<SimulatedTrick>& tricks,
                              const std::optional<results::AbSession>& ab = std::nullopt,
                              const results::MachineState& machine = {});

}  // namespace testing
}  // namespace reports
}  // namespace trickbench
