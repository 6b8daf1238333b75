#include "harness/benchmarks.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <utility>
#include <vector>

#include "common/atomic_file.h"
#include "determinism/seed.h"
#include "harness/nvtx.h"
#include "results/status.h"

namespace trickbench {
namespace {

using results::Json;

// One lazily built, warmed-up instance per (case, variant), so that SetUp and warm-up
// happen once and outside every measured region, whatever order the interleaved
// repetitions run in. With one_at_a_time (a backend that measures a device memory
// peak), getting an instance destroys every other one first, so the peak is that
// variant's alone; the price is a SetUp and warm-up whenever the variant changes.
class VariantInstances {
 public:
  VariantInstances(const TrickDef& def, const torch::Device& device, uint64_t seed,
                   double warmup_seconds, bool one_at_a_time)
      : def_(def), device_(device), seed_(seed), warmup_seconds_(warmup_seconds),
        one_at_a_time_(one_at_a_time) {}

  // The instance, or nullptr when building or running it failed (*error says why,
  // now or on every later call).
  Trick* Get(size_t ci, size_t vi, std::string* error) {
    Slot& slot = slots_[{ci, vi}];
    if (!slot.error.empty()) {
      *error = slot.error;
      return nullptr;
    }
    if (!slot.trick) {
      if (one_at_a_time_) {
        for (auto& [key, other] : slots_) other.trick.reset();
      }
      SeedEverything(seed_);
      slot.trick = def_.Make();
      slot.trick->SetUp(Setting{def_.cases()[ci], device_, def_.variants()[vi].name});
      // Warm-up: first-touch page faults, lazy init, allocator caches.
      const auto& body = def_.variants()[vi].body;
      const auto start = std::chrono::steady_clock::now();
      do {
        body(*slot.trick);
      } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
               warmup_seconds_);
    }
    return slot.trick.get();
  }

  // Records a failure: the instance is dropped and every later Get says why.
  void Fail(size_t ci, size_t vi, const std::string& error) {
    Slot& slot = slots_[{ci, vi}];
    slot.error = error;
    slot.trick.reset();
  }

  void Clear() { slots_.clear(); }

 private:
  struct Slot {
    std::unique_ptr<Trick> trick;
    std::string error;
  };
  const TrickDef& def_;
  const torch::Device device_;
  const uint64_t seed_;
  const double warmup_seconds_;
  const bool one_at_a_time_;
  std::map<std::pair<size_t, size_t>, Slot> slots_;
};

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// UseRealTime (CPU) and UseManualTime (CUDA events) make Google Benchmark 1.7 append
// "/real_time" or "/manual_time" to every name it writes. They are dropped, so that
// benchmark names (and the names in trickbench.checks that reports pair them by) are
// BM_<id>[/<case>]/<variant> on every device; trickbench.settings.timing says how the
// times were taken.
void DropTimeTypeSuffix(Json* benchmarks) {
  for (auto& b : *benchmarks) {
    for (const char* key : {"name", "run_name"}) {
      if (!b.contains(key) || !b[key].is_string()) continue;
      std::string v = b[key].get<std::string>();
      for (const std::string suffix : {"/real_time", "/manual_time"}) {
        const auto at = v.find(suffix);
        if (at != std::string::npos) v.erase(at, suffix.size());
      }
      b[key] = v;
    }
  }
}

// Google Benchmark writes a coefficient of variation of 0/0 (a counter that is zero in
// every repetition) as a bare nan, which is not JSON. Such a statistic has no value:
// it becomes null.
std::string NullNonFiniteNumbers(const std::string& gb_json) {
  static const std::regex kNonFinite(R"((:\s*)-?(nan|inf)\b)", std::regex::icase);
  return std::regex_replace(gb_json, kNonFinite, "$1null");
}

// Google Benchmark's argv: repetitions and min time go in as flags, not per-benchmark
// setters, which would append "/min_time:.../repeats:..." to every name.
std::vector<std::string> GoogleBenchmarkArgs(const RunOptions& opts, const char* argv0,
                                             const std::string& gb_out) {
  std::vector<std::string> args = {argv0, "--benchmark_out=" + gb_out,
                                   "--benchmark_out_format=json",
                                   "--benchmark_repetitions=" + std::to_string(opts.repetitions),
                                   "--benchmark_min_time=" + std::to_string(opts.min_time)};
  bool user_interleaving = false;
  for (const auto& f : opts.benchmark_flags) {
    user_interleaving |= StartsWith(f, "--benchmark_enable_random_interleaving");
    args.push_back(f);
  }
  if (!user_interleaving) args.push_back("--benchmark_enable_random_interleaving=true");
  return args;
}

}  // namespace

std::string BenchmarkName(const TrickDef& def, const std::string& case_name,
                          const std::string& variant) {
  std::string name = "BM_" + def.id();
  if (!case_name.empty()) name += "/" + case_name;
  return name + "/" + variant;
}

int RunTimedBenchmarks(const TimedRunInput& in, TimingBackend& timing, const std::string& out_path,
                       TimedRun* run, std::string* error) {
  const TrickDef& def = in.def;
  // Google Benchmark writes its JSON next to the result: same folder, same disk.
  std::string gb_out = out_path + ".gb.XXXXXX";
  const int fd = mkstemp(gb_out.data());
  if (fd < 0) {
    *error = "cannot create a temporary file beside " + out_path;
    return results::kExitError;
  }
  close(fd);
  std::vector<std::string> gb_args = GoogleBenchmarkArgs(in.opts, in.argv0, gb_out);
  std::vector<char*> gb_argv;
  for (auto& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) {
    std::remove(gb_out.c_str());
    return results::kExitUsage;
  }
  for (const auto& [k, v] : in.context) benchmark::AddCustomContext(k, v);
  benchmark::AddCustomContext("trickbench_id", def.id());

  auto instances = std::make_shared<VariantInstances>(
      def, in.device, in.opts.seed, std::min(0.05, in.opts.min_time), timing.OneInstanceAtATime());
  const int check_steps = def.check_steps();
  for (size_t ci = 0; ci < def.cases().size(); ++ci) {
    for (size_t vi = 0; vi < def.variants().size(); ++vi) {
      const std::string name = BenchmarkName(def, def.cases()[ci], def.variants()[vi].name);
      const VariantCheck* vc = &in.checks.cases[ci].variants[vi];
      const auto* body = &def.variants()[vi].body;
      TimingBackend* backend = &timing;
      benchmark::internal::Benchmark* registered = benchmark::RegisterBenchmark(
          name.c_str(), [instances, ci, vi, vc, body, backend, name, check_steps](benchmark::State& state) {
            NvtxRange variant_range(name);
            std::string why;
            try {
              Trick* trick = instances->Get(ci, vi, &why);
              if (!trick) {
                state.SkipWithError(why.c_str());
                return;
              }
              {
                NvtxRange measured(name + "/measured");
                backend->TimeLoop(state, [&] { (*body)(*trick); });
              }
              state.counters["peak_bytes"] = static_cast<double>(vc->peak_bytes);
              state.counters["run_peak_bytes"] = static_cast<double>(vc->run_peak_bytes);
              state.counters["allocations_per_run"] =
                  static_cast<double>(vc->allocations) / check_steps;
              for (const auto& [k, v] : vc->counters) state.counters[k] = v;
              if (const int64_t items = trick->ItemsPerRun(); items > 0) {
                state.SetItemsProcessed(state.iterations() * items);
              }
            } catch (const std::exception& e) {
              const std::string failure = "threw: " + DescribeException(e);
              instances->Fail(ci, vi, failure);
              state.SkipWithError(failure.c_str());
            }
          });
      timing.Prepare(registered);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  instances->Clear();

  std::string read_error;
  const std::string gb_text = ReadFile(gb_out, &read_error);
  std::remove(gb_out.c_str());
  Json gb = Json::parse(NullNonFiniteNumbers(gb_text), nullptr, /*allow_exceptions=*/false);
  if (gb.is_discarded() || !gb.is_object() || !gb.contains("benchmarks") ||
      !gb["benchmarks"].is_array()) {
    *error = "Google Benchmark wrote no readable JSON" +
             (read_error.empty() ? std::string() : " (" + read_error + ")");
    return results::kExitError;
  }
  run->context = gb.contains("context") && gb["context"].is_object() ? gb["context"]
                                                                       : Json::object();
  run->benchmarks = gb["benchmarks"];
  DropTimeTypeSuffix(&run->benchmarks);
  return results::kExitOk;
}

}  // namespace trickbench
