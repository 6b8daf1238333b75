#include "harness/rounds.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "common/interference.h"
#include "common/speed_probe.h"
#include "determinism/seed.h"
#include "harness/allocator_regime.h"
#include "harness/nvtx.h"
#include "results/gbench_export.h"
#include "stats/schedule.h"

namespace trickbench {
namespace {

using Clock = std::chrono::steady_clock;

// Enough for first-touch faults and lazy initialisation; a body of nanoseconds needs no
// more, and calibration runs it again before anything is timed.
constexpr int kMaxWarmupRuns = 1000;
constexpr int64_t kMaxIterations = int64_t{1} << 40;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A case's instances: one fresh seeded instance per variant, set up and warmed up
// untimed, all alive for the whole case, so that the variants of a round run back to
// back with nothing built in between.
class CaseInstances {
 public:
  CaseInstances(const TrickDef& def, size_t ci, const torch::Device& device, uint64_t seed,
                double warmup_seconds, TimingBackend& timing)
      : def_(def),
        ci_(ci),
        device_(device),
        seed_(seed),
        warmup_seconds_(warmup_seconds),
        timing_(timing) {}

  // Builds and warms up every variant; false with *error naming the variant that failed.
  // With `memory`, each variant's memory is metered over its SetUp and first
  // CheckSteps() warm-up runs (VariantMemory), as a memory-only check meters it.
  bool Build(std::string* failed_variant, std::string* error, results::CaseChecks* memory) {
    for (const auto& spec : def_.variants()) {
      try {
        std::optional<results::VariantCheck> vc;
        std::optional<VariantMemory> meter;
        if (memory) meter.emplace(&vc.emplace(CheckedByProcess1(spec.name)));
        SeedEverything(seed_);
        std::unique_ptr<Trick> trick = def_.Make();
        SetUpInstance(*trick, def_.NewInstance(def_.cases(device_)[ci_], device_, spec.name));
        if (meter) meter->AfterSetUp(*trick);
        // Warm-up: first-touch page faults, lazy init, allocator caches, library plans.
        // Each warm-up run is a one-iteration sample of the timing backend, which waits
        // for the device: an unsynchronised loop timed by the host queued up to ~1000
        // CUDA launches in its 50 ms (seconds of device work, waited out untimed). So it
        // ends within warmup_seconds_ of device time plus one run, and after
        // kMaxWarmupRuns runs at most (and never before the metered CheckSteps() runs).
        const Clock::time_point start = Clock::now();
        const int metered_runs = meter ? def_.check_steps() : 0;
        int runs = 0;
        do {
          timing_.TimeSample(1, [&] { spec.body(*trick); });
          if (++runs == metered_runs) {
            meter->AfterSteps();
            meter.reset();  // the meter's bookkeeping is off before anything is timed
            memory->variants.push_back(*vc);
          }
        } while (runs < metered_runs || (runs < kMaxWarmupRuns && Since(start) < warmup_seconds_));
        tricks_.push_back(std::move(trick));
      } catch (const std::exception& e) {
        *failed_variant = spec.name;
        *error = "threw: " + DescribeException(e);
        return false;
      }
    }
    return true;
  }

  Trick& operator[](size_t vi) { return *tricks_[vi]; }

 private:
  const TrickDef& def_;
  const size_t ci_;
  const torch::Device device_;
  const uint64_t seed_;
  const double warmup_seconds_;
  TimingBackend& timing_;
  std::vector<std::unique_ptr<Trick>> tricks_;
};

// One variant of one case, as the rounds loop runs it.
struct Runner {
  TimingBackend& timing;
  const TrickDef::Body& body;
  Trick& trick;
  double plant_factor;

  double Time(int64_t iterations) const {
    if (plant_factor <= 1) return timing.TimeSample(iterations, [&] { body(trick); });
    // The plant stretches the whole sample, once, after its last iteration: a pause
    // after every iteration would let a memory-bound body drain its writes meanwhile and
    // run faster, so the slowdown delivered would fall short of the one planted (an
    // in-place op planted at 1.10 measured 1.05 that way).
    int64_t done = 0;
    Clock::time_point start;
    return timing.TimeSample(iterations, [&] {
      if (done == 0) start = Clock::now();
      body(trick);
      if (++done < iterations) return;
      const auto own = Clock::now() - start;
      const auto until = start + std::chrono::duration_cast<Clock::duration>(own * plant_factor);
      while (Clock::now() < until) {
      }
    });
  }
};

// Grows the iteration count until one sample lasts about `min_time`: tenfold while a
// sample is under a tenth of it, then scaled from the median of three samples at that
// count (one sample was as likely to be the cold one) to the nearest power of two. The
// calibration samples are not kept: they are also the last of the warm-up.
int64_t Calibrate(const Runner& runner, double min_time) {
  int64_t n = 1;
  for (int attempt = 0; attempt < 40; ++attempt) {
    const double t = runner.Time(n);
    if (t >= min_time / 10 || n >= kMaxIterations) {
      std::array<double, 3> ts = {t, runner.Time(n), runner.Time(n)};
      std::sort(ts.begin(), ts.end());
      if (ts[1] <= 0) return n;
      return PowerOfTwoNear(static_cast<double>(n) * min_time / ts[1]);
    }
    n *= 10;
  }
  return n;
}

// The order seed of a case: differs per case and per process, so that two processes of
// one run_all do not repeat each other's orders, and is reproducible from the run's seed.
uint64_t OrderSeed(uint64_t seed, int process, size_t case_index) {
  uint64_t x = seed ^ (static_cast<uint64_t>(process) << 32) ^ (case_index * 0x9E3779B97F4A7C15ull);
  x += 0x9E3779B97F4A7C15ull;  // splitmix64: nearby inputs give unrelated seeds
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

bool Plant::Applies(const std::string& variant_name, bool is_baseline) const {
  if (factor <= 1 || variant.empty()) return false;
  return variant == "all" ? !is_baseline : variant == variant_name;
}

bool ParsePlant(const std::string& text, Plant* plant, std::string* error) {
  const auto colon = text.rfind(':');
  const std::string expected = " (expected VARIANT:FACTOR, e.g. optimized:1.10 or all:1.2)";
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    *error = "bad value for --plant_slowdown: '" + text + "'" + expected;
    return false;
  }
  const std::string number = text.substr(colon + 1);
  char* end = nullptr;
  const double factor = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !(factor >= 1) || !(factor <= 100)) {
    *error =
        "bad value for --plant_slowdown: '" + text + "': the factor must be a number from 1 to 100";
    return false;
  }
  plant->variant = text.substr(0, colon);
  plant->factor = factor;
  return true;
}

int64_t PowerOfTwoNear(double count) {
  if (!(count > 1)) return 1;  // NaN too
  const double exponent = std::round(std::log2(count));
  return exponent >= 40 ? kMaxIterations : int64_t{1} << static_cast<int>(exponent);
}

bool IterationsFrom(const std::string& path, const std::string& id,
                    const std::vector<std::string>& variants, const std::vector<std::string>& cases,
                    std::vector<std::vector<int64_t>>* iterations, std::string* error) {
  results::ResultFile file;
  try {
    file = results::ReadResultFile(path);
  } catch (const std::exception& e) {
    *error = std::string("--iterations_from: ") + e.what();  // names the file
    return false;
  }
  const results::TrickResult& t = file.trickbench;
  auto fail = [&](const std::string& what) {
    *error = "--iterations_from=" + path + ": " + what;
    return false;
  };
  if (t.id != id) return fail("a result of " + t.id + ", not of " + id);
  if (t.status != results::ResultStatus::kOk) {
    return fail("its status is " + results::Name(t.status) + ", so it timed nothing");
  }
  if (t.variants != variants) return fail("its variants differ from this binary's");
  if (t.cases != cases) return fail("its cases differ from this binary's on this device");
  iterations->clear();
  for (const results::CaseRounds& c : t.rounds) iterations->push_back(c.iterations);
  return true;
}

std::string BenchmarkName(const TrickDef& def, const std::string& case_name,
                          const std::string& variant) {
  return results::GoogleBenchmarkName(def.id(), case_name, variant);
}

bool RunRounds(const TimedRunInput& in, TimingBackend& timing, TimedRun* run, std::string* error) {
  const TrickDef& def = in.def;
  Plant plant;
  if (!in.opts.plant_slowdown.empty() && !ParsePlant(in.opts.plant_slowdown, &plant, error)) {
    return false;
  }
  // No untimed warm-up round after it (tried and reverted, see the commit log): the
  // first timed round of a later process runs about 1.4 % slow (median over variant
  // instances), but the median of the rounds absorbs it (the spread of the process values
  // without round 0 was 0.95-1.01 times that without round 4), and such a round cost a
  // ninth of the timed time.
  const double warmup = std::min(0.05, in.opts.min_time);
  const std::vector<std::string>& cases = def.cases(in.device);
  if (in.iterations && in.iterations->size() != cases.size()) {
    *error = "iterations given for " + std::to_string(in.iterations->size()) + " cases, not " +
             std::to_string(cases.size());
    return false;
  }
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const std::string& case_name = cases[ci];
    const size_t nv = def.variants().size();
    const Clock::time_point setup_start = Clock::now();
    CaseInstances instances(def, ci, in.device, in.opts.seed, warmup, timing);
    std::string failed_variant;
    results::CaseChecks memory;
    memory.case_name = case_name;
    if (!instances.Build(&failed_variant, error, in.meter_memory ? &memory : nullptr)) {
      *error = BenchmarkName(def, case_name, failed_variant) + ": " + *error;
      return false;
    }
    std::vector<Runner> runners;
    results::CaseRounds out;
    out.case_name = case_name;
    out.order_seed = OrderSeed(in.opts.seed, in.opts.process, ci);
    for (size_t vi = 0; vi < nv; ++vi) {
      const auto& spec = def.variants()[vi];
      const double factor = plant.Applies(spec.name, vi == 0) ? plant.factor : 1.0;
      runners.push_back({timing, spec.body, instances[vi], factor});
    }
    const stats::RoundSchedule plan =
        stats::ScheduleRounds(static_cast<int>(nv), in.opts.rounds, out.order_seed);
    try {
      if (in.iterations) {
        out.iterations = (*in.iterations)[ci];
        if (out.iterations.size() != nv) {
          *error = case_name + ": iterations given for " + std::to_string(out.iterations.size()) +
                   " variants, not " + std::to_string(nv);
          return false;
        }
      } else {
        for (size_t vi = 0; vi < nv; ++vi) {
          NvtxRange calibrate(BenchmarkName(def, case_name, def.variants()[vi].name) +
                              "/calibrate");
          out.iterations.push_back(Calibrate(runners[vi], in.opts.min_time));
        }
      }
      const Clock::time_point case_start = Clock::now();
      run->setup_seconds += std::chrono::duration<double>(case_start - setup_start).count();
      for (size_t r = 0; r < plan.rounds.size(); ++r) {
        for (size_t position = 0; position < nv; ++position) {
          const int vi = plan.rounds[r][position];
          NvtxRange measured(BenchmarkName(def, case_name, def.variants()[vi].name) + "/measured");
          results::RoundSample s;
          s.round = static_cast<int>(r);
          s.position = static_cast<int>(position);
          s.variant = vi;
          s.iterations = out.iterations[vi];
          s.probe_ns = RunSpeedProbe().ns;
          s.start_seconds = Since(case_start);
          const Interference before = SampleInterference();
          const double seconds = runners[vi].Time(s.iterations);
          const Interference d = SampleInterference() - before;
          s.ns_per_iteration = std::max(seconds, 1e-12) * 1e9 / s.iterations;
          s.host_ns_per_iteration = timing.LastSampleHostSeconds() * 1e9 / s.iterations;
          s.cpu_ns_per_iteration = (d.user_seconds + d.system_seconds) * 1e9 / s.iterations;
          s.involuntary_switches = d.involuntary_switches;
          s.voluntary_switches = d.voluntary_switches;
          s.minor_faults_per_iteration = static_cast<double>(d.minor_faults) / s.iterations;
          s.steal_seconds = std::max(0.0, d.steal_seconds);
          out.samples.push_back(s);
        }
      }
      run->rounds_seconds += Since(case_start);
    } catch (const std::exception& e) {
      *error = BenchmarkName(def, case_name, def.variants()[0].name) +
               ": threw: " + DescribeException(e);
      return false;
    }
    run->rounds.push_back(std::move(out));
    if (in.meter_memory) run->memory.push_back(std::move(memory));
  }
  return true;
}

}  // namespace trickbench
