// The timed part of a run: paired, randomized rounds (randomized multiple interleaved
// trials). Per case, every variant gets one fresh seeded instance, set up and warmed up
// untimed, and an iteration count calibrated once so that one sample lasts about
// --min_time; then --rounds rounds, and in each round every variant runs one sample, back
// to back, in the order stats::ScheduleRounds draws from a seed that is recorded.
//
//   TimedRun run;
//   std::string error;
//   if (!RunRounds({def, checks, opts, device}, *timing, &run, &error)) ...
//   // run.rounds: per case the samples (time, CPU time, interference) -> trickbench.rounds
//
// Why rounds and not Google Benchmark's repetitions: on a shared machine the drift between
// two moments (20-40 % here) is larger than most effects. Within a round the variants run
// seconds apart, so the per-round ratio baseline/variant cancels drift that hits both, and
// a random order per round turns order effects (warm caches, a throttled clock) into noise
// both variants share. The statistics (stats/speedup.h) take one value per process, the
// median of its rounds' log ratios, so a round hit by a preemption does not move it.
//
// Why a later process of a run reuses process 1's iteration counts (--iterations_from):
// for some workloads the time per iteration depends on how many run back to back (the
// first after another variant meets cold caches; an allocator settles over a few), so
// a count calibrated afresh in every process made the processes differ by the count
// they drew. In two default runs here, settings whose processes drew different counts
// had process values 1.3-3x as spread as those with one count (tensor_core_multiples
// vocab33708_fp32: 0.35 apart between counts 1 and 2 of its variant). Calibration
// rounds to a power of two on the median of three samples, so two runs' process 1s
// mostly draw the same count; compare says where they did not (reports/compare.h).
//
// Measurement is kept apart from the workload: the trick supplies its variant bodies;
// instances, warm-up, calibration, the loop and the interference counters live here and
// in the timing backend. NVTX ranges name a variant BM_<id>[/<case>]/<variant>
// (BenchmarkName), as the Google Benchmark export (results/gbench_export.h) does, so a
// profile and an exported file name a variant alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/checks.h"
#include "harness/options.h"
#include "harness/timing.h"
#include "harness/trick.h"
#include "results/result_file.h"

namespace trickbench {

std::string BenchmarkName(const TrickDef& def, const std::string& case_name,
                          const std::string& variant);

struct TimedRunInput {
  const TrickDef& def;
  const RunOptions& opts;
  const torch::Device& device;
  // Meter each variant's CPU memory while its instance is built and warmed up, as a
  // memory-only check would (VariantMemory over SetUp and the first CheckSteps()
  // warm-up runs), into TimedRun::memory. Why: a run's later processes must meter memory
  // (it varies between processes) but need no other check, and a separate pass of fresh
  // instances cost them 12 % of a default run. CPU only: the CUDA meter reads the
  // caching allocator's whole peak, which the other variants' live instances are in.
  bool meter_memory = false;
  // Per case, per variant: the iterations per sample to use instead of calibrating
  // (IterationsFrom); null: calibrate here.
  const std::vector<std::vector<int64_t>>* iterations = nullptr;
};

struct TimedRun {
  std::vector<results::CaseRounds> rounds;  // one per case timed, in the trick's order
  // With meter_memory: per case, each variant's check record (CheckedByProcess1) with
  // its memory, in the trick's order.
  std::vector<results::CaseChecks> memory;
  // Wall seconds, every case together: the instances' set-up, warm-up and calibration,
  // and the paired rounds themselves (the only part that measures).
  double setup_seconds = 0;
  double rounds_seconds = 0;
};

// A slowdown planted for the noise study (--plant_slowdown=VARIANT:FACTOR): after the
// last iteration of each sample of a planted variant, busy-wait (factor - 1) times the
// sample's own time, inside the timed region. Busy, not asleep: a sleeping thread gives its core to
// the machine, which changes the noise the study is measuring.
struct Plant {
  std::string variant;  // a variant name, or "all": every variant but the baseline
  double factor = 1;
  bool Applies(const std::string& variant_name, bool is_baseline) const;
};

// Parses "VARIANT:FACTOR" (FACTOR a number from 1 to 100). False with *error naming the
// problem; the variant's existence is checked against the trick by the caller.
bool ParsePlant(const std::string& text, Plant* plant, std::string* error);

// The iterations per sample of an earlier process of this trick: per case of `cases`,
// per variant of `variants`, read from its result file `path` (--iterations_from).
// False with *error naming the file and what does not match (another trick, another
// case or variant list, a process that did not time).
bool IterationsFrom(const std::string& path, const std::string& id,
                    const std::vector<std::string>& variants, const std::vector<std::string>& cases,
                    std::vector<std::vector<int64_t>>* iterations, std::string* error);

// The power of two nearest `count` in ratio (at least 1, at most 2^40): a calibrated
// count on a coarse grid, so that two runs measuring a few percent apart still agree.
int64_t PowerOfTwoNear(double count);

// Runs every case's rounds. False with *error naming the case and variant when a variant cannot
// be set up or throws (run->rounds then holds the cases before it).
bool RunRounds(const TimedRunInput& in, TimingBackend& timing, TimedRun* run, std::string* error);

}  // namespace trickbench
