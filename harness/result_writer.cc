#include "harness/result_writer.h"

#include <ATen/Parallel.h>

#include <ctime>
#include <iostream>

#include "harness/rounds.h"
#include "harness/nvtx.h"
#include "results/gbench_export.h"

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
  t.variants = def.VariantNames();
  t.cases = def.cases(device);
  t.reproduced_variant = def.reproduced_variant();
  t.tolerance = def.tolerance();
  t.settings.threads = at::get_num_threads();
  t.settings.rounds = opts.rounds;
  t.settings.process = opts.process;
  t.settings.iterations_from = opts.iterations_from;
  Plant plant;
  std::string ignored;
  if (!opts.plant_slowdown.empty() && ParsePlant(opts.plant_slowdown, &plant, &ignored)) {
    t.settings.plant_variant = plant.variant;
    t.settings.plant_factor = plant.factor;
  }
  t.settings.min_time = opts.min_time;
  t.settings.seed = opts.seed;
  t.settings.check_steps = def.check_steps();
  t.settings.timing = timing.name();
  t.settings.backend = timing.Settings();
  t.nvtx = NvtxRange::enabled();
  return file;
}

bool WriteResult(const std::string& path, const results::ResultFile& file) {
  std::string error;
  const std::string exported = results::GoogleBenchmarkExportPath(path);
  if (!results::WriteResultFile(path, file, &error) ||
      !results::WriteGoogleBenchmarkExport(exported, file, &error)) {
    std::cerr << "trickbench: " << error << "\n";
    return false;
  }
  std::cout << "trickbench: wrote " << path << " (Google Benchmark's JSON: " << exported << ")\n";
  return true;
}

}  // namespace trickbench
