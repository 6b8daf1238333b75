#include "harness/runner.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "common/atomic_file.h"
#include "common/glibc_allocator.h"
#include "common/interference.h"
#include "common/output_dir.h"
#include "harness/rounds.h"
#include "harness/checks.h"
#include "harness/context.h"
#include "harness/fork_server.h"
#include "harness/nvtx.h"
#include "harness/options.h"
#include "harness/profile.h"
#include "harness/result_writer.h"
#include "harness/summary.h"
#include "harness/timing.h"
#include "results/status.h"

namespace trickbench {
namespace {

using results::ResultStatus;

// <runs root>/<id>.json (common/output_dir.h); a folder that cannot be made is reported
// where the result file is written, with its path.
std::string DefaultOutPath(const std::string& id) {
  const std::string root = RunsRoot();
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  return root + "/" + id + ".json";
}

void PrintList(const TrickDef& def) {
  std::cout << def.id() << " (" << def.category() << "; " << def.source()
            << ")\n  claim: " << def.claim() << "\n  variants:";
  for (const auto& v : def.variants()) std::cout << " " << v.name;
  std::cout << " (baseline: " << def.variants().front().name << ")\n  cases:";
  for (const auto& c : def.cpu_cases()) std::cout << " " << (c.empty() ? "(one)" : c);
  if (!def.cuda_cases().empty()) {
    std::cout << "\n  cases on CUDA:";
    for (const auto& c : def.cuda_cases()) std::cout << " " << c;
  }
  std::cout << "\n  needs CUDA: " << (def.needs_cuda() ? "yes" : "no") << "\n";
}

// The reproduced variant's fingerprint per case, as one line of JSON.
int PrintFingerprints(const TrickDef& def, const torch::Device& device, uint64_t seed) {
  results::Json out = {{"id", def.id()}, {"variant", def.reproduced_variant()}, {"seed", seed}};
  results::Json cases = results::Json::array();
  try {
    for (const auto& c : def.cases(device)) {
      if (def.needs_cuda() && !device.is_cuda()) break;
      const Fingerprint f = ReproduceFingerprint(def, c, device, seed);
      results::Json tensors = results::Json::array();
      for (const auto& t : f.tensors) tensors.push_back({{"name", t.name}, {"hash", t.hash}});
      cases.push_back({{"case", c}, {"digest", f.Hex()}, {"tensors", tensors}});
    }
  } catch (const std::exception& e) {
    std::cerr << "trickbench: " << def.id() << ": " << DescribeException(e) << "\n";
    return results::kExitError;
  }
  out["cases"] = cases;
  std::cout << out.dump() << "\n";
  return results::kExitOk;
}

// Seconds since the last lap (or construction): the phases of tb.phase_seconds.
class PhaseClock {
 public:
  double Lap() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The timing backend for the run, with a word on flags that do not apply to it.
std::unique_ptr<TimingBackend> ChooseTiming(const torch::Device& device, const RunOptions& opts) {
  std::unique_ptr<TimingBackend> timing = TimingBackends::For(device, opts.backend_switches);
  for (const std::string& name : TimingBackends::IgnoredSwitches(*timing, opts.backend_switches)) {
    std::cerr << "trickbench: --" << name << " ignored: the device is " << device.str() << "\n";
  }
  if (!device.is_cpu() && timing->name() == "wall_clock") {
    std::cerr << "trickbench: this binary has no timing backend for " << device.str()
              << ": the wall clock measures launch cost, not device time (build with "
                 "--config=cuda)\n";
  }
  return timing;
}

}  // namespace

bool ResolveDevice(const std::string& flag, torch::Device* device, std::string* error) {
  const bool cuda = torch::cuda::is_available();
  if (flag == "cuda" && !cuda) {
    *error = "--device=cuda but no CUDA device is available (LibTorch build: " +
             std::string(TORCH_VERSION) + ")";
    return false;
  }
  *device = (flag == "cuda" || (flag == "auto" && cuda)) ? torch::Device(torch::kCUDA, 0)
                                                         : torch::Device(torch::kCPU);
  return true;
}

int TrickMain(int argc, char** argv) {
  // run_all's fork server: this process only serves forks (harness/fork_server.h), and each
  // child runs TrickMain from the top with its request's arguments, as an exec'd process
  // would. Checked before anything else runs, so that the server forks from the state an
  // exec'd process's main() starts in.
  if (argc == 2 && std::string(argv[1]) == "--serve") return ServeForks(0, 1, argv[0], TrickMain);
  // Before anything allocates: what a large temporary costs must not depend on what this
  // process did first (common/glibc_allocator.h).
  ApplyAllocatorRegime(kDefaultAllocatorRegime);
  RunOptions opts;
  std::string error;
  if (!ParseRunOptions(std::vector<std::string>(argv + 1, argv + argc), &opts, &error)) {
    std::cerr << "trickbench: " << error << "\n";
    return results::kExitUsage;
  }
  if (opts.serve) {
    std::cerr << "trickbench: --serve is for run_all's fork servers and takes no other flag\n";
    return results::kExitUsage;
  }
  if (opts.help) {
    std::cout << RunUsage();
    return results::kExitOk;
  }
  const auto& tricks = RegisteredTricks();
  if (tricks.size() != 1) {
    std::cerr << "trickbench: this binary links " << tricks.size()
              << " tricks; a trick binary holds exactly one\n";
    return results::kExitError;
  }
  const TrickDef& def = *tricks.front();
  if (std::string bad = ValidateDef(def); !bad.empty()) {
    std::cerr << "trickbench: bad trick registration: " << bad << "\n";
    return results::kExitError;
  }
  if (opts.list) {
    PrintList(def);
    return results::kExitOk;
  }
  torch::Device device(torch::kCPU);
  if (!ResolveDevice(opts.device, &device, &error)) {
    std::cerr << "trickbench: " << error << "\n";
    return results::kExitUsage;
  }
  if (!opts.plant_slowdown.empty()) {
    Plant plant;
    if (!ParsePlant(opts.plant_slowdown, &plant, &error)) {
      std::cerr << "trickbench: " << error << "\n";
      return results::kExitUsage;
    }
    if (plant.variant != "all" && def.VariantIndex(plant.variant) < 0) {
      std::cerr << "trickbench: bad value for --plant_slowdown: " << def.id() << " has no variant '"
                << plant.variant << "' (see --list)\n";
      return results::kExitUsage;
    }
  }
  // A file that does not fit this trick is a mistake in the command: refused before
  // anything runs, like a bad flag value.
  std::vector<std::vector<int64_t>> iterations;
  if (!opts.iterations_from.empty()) {
    if (!IterationsFrom(opts.iterations_from, def.id(), def.VariantNames(), def.cases(device),
                        &iterations, &error)) {
      std::cerr << "trickbench: " << error << "\n";
      return results::kExitUsage;
    }
  }
  const std::unique_ptr<TimingBackend> timing = ChooseTiming(device, opts);
  std::string thread_policy = "--threads=" + std::to_string(opts.threads);
  const int threads = opts.threads > 0
                          ? opts.threads
                          : DefaultThreads(std::thread::hardware_concurrency(), &thread_policy);
  at::set_num_threads(threads);
  if (opts.fingerprint) return PrintFingerprints(def, device, opts.seed);

  const std::string out_path = opts.out.empty() ? DefaultOutPath(def.id()) : opts.out;
  if (!CheckWritable(out_path, &error)) {
    std::cerr << "trickbench: bad --out: " << error << "\n";
    return results::kExitUsage;
  }
  NvtxRange trick_range(def.id());
  Context context = CaptureContext(device);
  context.emplace_back("thread_policy", thread_policy);
  context.emplace_back("cpu_allocator", DescribeAllocatorRegime(kDefaultAllocatorRegime) +
                                            "; a case with an allocator axis sets its own");
  timing->AddContext(&context);
  results::ResultFile file = NewResultFile(def, opts, device, *timing, context, argv[0]);
  results::TrickResult& tb = file.trickbench;

  if (def.needs_cuda() && !device.is_cuda()) {
    tb.status = ResultStatus::kSkipped;
    tb.reason =
        "needs CUDA (" + def.needs_cuda_reason() + "); no CUDA device here (cuda_available=false)";
    tb.reproducibility = NotChecked(tb.reason);
    std::cout << def.id() << ": skipped: " << tb.reason << "\n";
    return WriteResult(out_path, file) ? results::kExitOk : results::kExitError;
  }

  std::cout << def.id() << ": checking " << def.variants().size() << " variants x "
            << def.cases(device).size() << " case(s) on " << device.str() << ", " << threads
            << " threads\n";
  results::PhaseSeconds& phases = tb.phase_seconds.emplace();
  PhaseClock clock;
  // Process 1 of a run checks equivalence and "in effect"; the later ones only meter
  // memory, which varies between processes (harness/checks.h CheckScope). On the CPU
  // they meter it while the rounds build their instances, with no pass of its own
  // (harness/rounds.h meter_memory); where no rounds follow (--check_only, --profile)
  // or on CUDA, in a memory-only pass.
  const bool memory_only = opts.process > 1;
  const bool memory_in_rounds = memory_only && device.is_cpu() && !opts.check_only && !opts.profile;
  const CheckReport checks =
      memory_in_rounds ? CheckReport{}
                       : RunChecks(def, device, opts.seed, timing.get(), Mutation::kNone,
                                   memory_only ? CheckScope::kMemoryOnly : CheckScope::kFull);
  tb.checks_memory_only = memory_only;
  phases.checks = clock.Lap();
  tb.checks = checks.cases;
  // One reproducibility check per run: it runs the reproduced variant twice under the
  // determinism guard, and its answer does not change from one process to the next.
  tb.reproducibility = !checks.ok         ? NotChecked("not run: the checks failed")
                       : opts.process > 1 ? NotChecked("checked by process 1 of this run")
                                          : CheckReproducibility(def, device, opts.seed);
  const double reproducibility_seconds = clock.Lap();
  if (tb.reproducibility->checked) phases.reproducibility = reproducibility_seconds;
  if (checks.ok && opts.profile) {
    std::vector<ProfileTrace> traces;
    const bool profiled = ProfileVariants(def, device, opts.seed, out_path, &traces, &error);
    results::Json listed = results::Json::array();
    for (const ProfileTrace& t : traces) {
      std::cout << def.id() << ": profile: " << t.path << "\n";
      listed.push_back(t.path);
    }
    file.context["profiles"] = listed;
    if (!profiled) {
      std::cerr << "trickbench: " << error << "\n";
      tb.status = ResultStatus::kError;
      tb.reason = error;
      WriteResult(out_path, file);
      return results::kExitError;
    }
  }
  if (!checks.ok || opts.check_only) {
    tb.status = checks.ok ? ResultStatus::kChecked : ResultStatus::kInvalid;
    tb.reason = checks.ok ? "timing not run (--check_only)" : checks.reason;
    if (!checks.ok) std::cerr << def.id() << ": invalid: " << checks.reason << "\n";
    if (!WriteResult(out_path, file)) return results::kExitError;
    return checks.ok ? results::kExitOk : results::kExitInvalid;
  }

  const MachineLoad load = SampleMachineLoad();
  file.context["load_avg"] = results::Json::array({load.load_1min});
  file.context["num_cpus"] = load.cpus;
  TimedRun run;
  const bool timed = RunRounds(
      {def, opts, device, memory_in_rounds, opts.iterations_from.empty() ? nullptr : &iterations},
      *timing, &run, &error);
  if (memory_in_rounds) tb.checks = std::move(run.memory);
  phases.rounds_setup = run.setup_seconds;
  phases.rounds = run.rounds_seconds;
  tb.rounds = std::move(run.rounds);
  tb.status = timed ? ResultStatus::kOk : ResultStatus::kError;
  tb.reason = timed ? "" : error;
  if (!WriteResult(out_path, file)) return results::kExitError;
  if (tb.status != ResultStatus::kOk) {
    std::cerr << def.id() << ": " << results::Name(tb.status) << ": " << tb.reason << "\n";
    return results::kExitError;
  }
  PrintSummary(std::cout, file, *timing);
  return results::kExitOk;
}

}  // namespace trickbench
