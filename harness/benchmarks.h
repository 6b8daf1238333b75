// The timed part of a run: every (case, variant) as a Google Benchmark benchmark,
// repetitions randomly interleaved, timed by the run's timing backend.
//
//   TimedRun run;
//   std::string error;
//   const int exit = RunTimedBenchmarks({def, checks, opts, device, context, argv[0]},
//                                       *timing, out_path, &run, &error);
//   // run.context and run.benchmarks: Google Benchmark's JSON, ready for the result file
//
// Measurement is kept apart from the workload: the trick only supplies its variant
// bodies; building instances, warming them up, and the loop itself happen here and in
// the backend. Every benchmark is named BM_<id>[/<case>]/<variant> (BenchmarkName) on
// every device, because names are how a report pairs timings with checks.
#pragma once

#include <string>

#include "harness/checks.h"
#include "harness/context.h"
#include "harness/options.h"
#include "harness/timing.h"
#include "harness/trick.h"
#include "results/checked_json.h"

namespace trickbench {

std::string BenchmarkName(const TrickDef& def, const std::string& case_name,
                          const std::string& variant);

struct TimedRunInput {
  const TrickDef& def;
  const CheckReport& checks;  // their memory figures become counters of every repetition
  const RunOptions& opts;
  const torch::Device& device;
  const Context& context;  // added to Google Benchmark's context
  const char* argv0;
};

struct TimedRun {
  results::Json context = results::Json::object();    // Google Benchmark's, with ours
  results::Json benchmarks = results::Json::array();  // its entries, in the order it wrote them
};

// Runs the benchmarks and reads back what Google Benchmark wrote (through a temporary
// file beside `out_path`, removed afterwards). Returns results::kExitOk with *run set,
// kExitUsage when Google Benchmark refused a --benchmark_ flag (it said why on
// stderr), or kExitError with *error set.
int RunTimedBenchmarks(const TimedRunInput& in, TimingBackend& timing, const std::string& out_path,
                       TimedRun* run, std::string* error);

}  // namespace trickbench
