#include "results/full_examples.h"

#include <limits>

namespace trickbench {
namespace results {
namespace testing {

ResultFile FullResult() {
  ResultFile r;
  r.context = {{"date", "2026-01-01T00:00:00+00:00"},
               {"num_cpus", 2},
               {"torch_version", "2.11.0"},
               {"device", "cpu"},
               {"trickbench_id", "demo"}};
  TrickResult& t = r.trickbench;
  t.id = "demo";
  t.category = "Kernels";
  t.source = "A1";
  t.claim = "faster";
  t.expectations = {Expectation{.metric = "time"}};
  t.needs_cuda = false;
  t.status = ResultStatus::kOk;
  t.device = "cpu";
  t.baseline = "baseline";
  t.variants = {"baseline", "optimized"};
  t.cases = {"small", "large"};
  t.reproduced_variant = "optimized";
  t.tolerance = {1e-5, 1e-6};
  t.settings.threads = 2;
  t.settings.min_time = 0.1;
  t.settings.seed = 7;
  t.settings.check_steps = 2;
  t.settings.timing = "cuda_events";
  t.settings.backend = {{"flush_l2", true}};
  t.settings.rounds = 3;
  t.settings.process = 2;
  t.settings.plant_variant = "optimized";
  t.settings.plant_factor = 1.1;
  t.settings.iterations_from = "runs/x/full.p1.json";
  t.nvtx = true;
  t.checks.emplace();
  for (const std::string& c : t.cases) {
    CaseChecks cc{c, {}};
    for (const std::string& v : t.variants) {
      VariantCheck vc;
      vc.name = v;
      vc.equivalent = true;
      vc.max_abs_diff = v == "baseline" ? 0 : 1e-7;
      vc.max_rel_diff = v == "baseline" ? 0 : std::numeric_limits<double>::infinity();
      vc.active = true;
      vc.setup_bytes = 100;
      vc.peak_bytes = 4096;
      vc.run_peak_bytes = 3996;
      vc.allocations = 4;
      vc.items_per_run = 32;
      vc.counters = {{"flops_per_run", 1e6}, {"cuda_peak_allocated_bytes", 512}};
      cc.variants.push_back(vc);
    }
    t.checks->push_back(cc);
    // Three rounds; the optimized variant runs first in round 1.
    CaseRounds rounds;
    rounds.case_name = c;
    rounds.order_seed = 11;
    rounds.iterations = {10, 12};
    for (int k = 0; k < t.settings.rounds; ++k) {
      for (int position = 0; position < 2; ++position) {
        RoundSample s;
        s.round = k;
        s.position = position;
        s.variant = k == 1 ? 1 - position : position;
        s.start_seconds = 0.01 * (2 * k + position);
        s.iterations = rounds.iterations[s.variant];
        s.ns_per_iteration = (s.variant == 0 ? 100e3 : 80e3) + k;
        s.cpu_ns_per_iteration = s.ns_per_iteration * 0.99;
        s.host_ns_per_iteration = s.ns_per_iteration * 0.25;
        s.involuntary_switches = k;
        s.voluntary_switches = 1;
        s.minor_faults_per_iteration = 0.5;
        s.steal_seconds = 0.001;
        s.probe_ns = 95e3 + k;
        rounds.samples.push_back(s);
      }
    }
    t.rounds.push_back(rounds);
  }
  Reproducibility rep;
  rep.checked = true;
  rep.variant = "optimized";
  rep.bitwise_reproducible = false;
  rep.fingerprint = "a1b2c3d4";
  rep.detail = "large: runs differ at result[0]";
  rep.cases = {{"small", true, "a1b2c3d4", "", ""},
               {"large", false, "ffee", "result[0]", ""},
               {"huge", false, "", "", "out of memory"}};
  t.reproducibility = rep;
  t.checks_memory_only = true;
  t.phase_seconds =
      PhaseSeconds{.checks = 1.25, .reproducibility = 0.5, .rounds_setup = 0.75, .rounds = 2.5};
  return r;
}

RunIndex FullIndex() {
  RunIndex index;
  index.started = "2026-01-01T00:00:00Z";
  index.finished = "2026-01-01T00:05:00Z";
  index.complete = false;
  index.interrupted_by = "SIGTERM";
  index.out_dir = "/abs/run-20260101-000000/new";
  index.timeout_seconds = 300;
  index.forwarded_flags = {"--min_time=0.05"};
  index.processes = 2;
  index.machine = {0.5, 1.25, 0.75, 42};
  index.ab =
      AbSession{12345, kAbNew, "/abs/old-bin", "/abs/new-bin", {kAbOld, kAbNew, kAbNew, kAbOld}};
  index.budget = RunBudget{.seconds = 520,
                           .rule = "--budget",
                           .first_pass_processes = 1,
                           .first_pass_seconds = 290.5,
                           .max_processes = 24,
                           .imprecise_half_width = 0.1,
                           .decision_half_width = 0.025,
                           .added = {{"trick_0", 1}},
                           .left_out = 2,
                           .towards_decision = 1};
  // Every outcome once, as process 1; then trick_0 again as process 2.
  int i = 0;
  for (RunOutcome o : AllRunOutcomes()) {
    const std::string id = "trick_" + std::to_string(i++);
    const bool wrote =
        o != RunOutcome::kCrashed && o != RunOutcome::kTimeout && o != RunOutcome::kInterrupted;
    index.tricks.push_back({id, o, o == RunOutcome::kOk ? "" : "because", wrote ? 0 : -1, 1.5,
                            wrote ? std::optional<std::string>(id + ".p1.json") : std::nullopt,
                            id + ".p1.log", 1});
  }
  index.tricks[0].phase_seconds = PhaseSeconds{.checks = 0.25, .rounds_setup = 0.125, .rounds = 1};
  IndexEntry again = index.tricks[0];
  again.process = 2;
  again.result = "trick_0.p2.json";
  again.log = "trick_0.p2.log";
  again.forked = true;
  index.tricks.push_back(again);
  return index;
}

}  // namespace testing
}  // namespace results
}  // namespace trickbench
