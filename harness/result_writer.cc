#include "harness/result_writer.h"

#include <ctime>
#include <iostream>

#include "harness/rounds.h"
#include "harness/nvtx.h"

namespace trickbench {
namespace {

std::string LocalTime() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%FT%T%z", std::localtime(&t));
  return buf;
}

}  // namespace

results::ResultFile NewResultFile(const TrickDef& def, const RunOptions& opts,
                                  const torch::Device& device, const TimingBackend& timing,
                                  const Context& context, const std::string& executable) {
  results::ResultFile file;
  for (const auto& [k, v] : context) file.context[k] = v;
  file.context["executable"] = executable;
  file.context["date"] = LocalTime();
  results::TrickResult& t = file.trickbench;
  t.id = def.id();
  t.category = def.category();
  t.source = def.source();
  t.claim = def.claim();
  t.expectations = def.expectations();
  t.needs_cuda = def.needs_cuda();
  t.status = results::ResultStatus::kError;
  t.device = device.str();
  t.baseline = def.variants().front().name;
  for (const auto& v : def.variants()) t.variants.push_back(v.name);
  t.cases = def.cases(device);
  t.reproduced_variant = def.reproduced_variant();
  t.tolerance = def.tolerance();
  t.settings.threads = at::get_num_threads();
  t.settings.repetitions = opts.rounds;
  t.settings.rounds = opts.rounds;
  t.settings.process = opts.process;
  Plant plant;
  std::string ignored;
  if (!opts.plant_slowdown.empty() && ParsePlant(opts.plant_slowdown, &plant, &ignored)) {
    t.settings.plant_variant = plant.variant;
    t.settings.plant_factor = plant.factor;
  }
  t.settings.min_time = opts.min_time;
  t.settings.seed = opts.seed;
  t.settings.check_steps = def.check_steps();
  t.settings.random_interleaving = true;
  t.settings.timing = timing.name();
  t.settings.backend = timing.Settings();
  t.nvtx = NvtxRange::enabled();
  return file;
}

std::vector<results::CaseChecks> ChecksRecord(const TrickDef& def, const CheckReport& checks) {
  std::vector<results::CaseChecks> cases;
  for (const CaseCheck& cc : checks.cases) {
    results::CaseChecks out{cc.case_name, {}};
    for (const VariantCheck& vc : cc.variants) {
      results::VariantCheck v;
      v.name = vc.variant;
      v.benchmark = BenchmarkName(def, cc.case_name, vc.variant);
      v.equivalent = vc.vs_baseline.equal;
      v.max_abs_diff = vc.vs_baseline.max_abs_diff;
      v.max_rel_diff = vc.vs_baseline.max_rel_diff;
      v.equivalence_detail = vc.vs_baseline.detail;
      v.active = vc.inactive.empty();
      v.inactive_reason = vc.inactive;
      v.setup_bytes = vc.setup_bytes;
      v.peak_bytes = vc.peak_bytes;
      v.run_peak_bytes = vc.run_peak_bytes;
      v.allocations = vc.allocations;
      v.counters = vc.counters;
      out.variants.push_back(std::move(v));
    }
    cases.push_back(std::move(out));
  }
  return cases;
}

bool WriteResult(const std::string& path, const results::ResultFile& file) {
  std::string error;
  if (!results::WriteResultFile(path, file, &error)) {
    std::cerr << "trickbench: " << error << "\n";
    return false;
  }
  std::cout << "trickbench: wrote " << path << "\n";
  return true;
}

results::ResultStatus TimedStatus(const results::Json& benchmarks, std::string* reason) {
  for (const auto& b : benchmarks) {
    if (b.value("error_occurred", false)) {
      *reason = b.value("name", "") + ": " + b.value("error_message", "");
      return results::ResultStatus::kError;
    }
  }
  if (benchmarks.empty()) {
    *reason = "no benchmark ran";
    return results::ResultStatus::kError;
  }
  reason->clear();
  return results::ResultStatus::kOk;
}

}  // namespace trickbench
