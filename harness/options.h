// The trick binary's command line: its flags, their checks and the --help text.
//
//   RunOptions opts;
//   std::string error;
//   if (!ParseRunOptions({"--threads=2", "--benchmark_filter=no_grad"}, &opts, &error)) {
//     std::cerr << "trickbench: " << error << "\n";   // e.g. "bad value for --threads: ..."
//     return results::kExitUsage;
//   }
//   if (opts.help) std::cout << RunUsage();
//
// Parsing is strict (common/flags.h): a mistyped flag must not quietly measure
// something else. Timing backends add their own flags (a CUDA build: --flush_l2); a
// binary without such a backend still knows the flag's name and says what build it
// needs, rather than calling it unknown.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/timing.h"

namespace trickbench {

struct RunOptions {
  std::string out;              // result file; "" = default (results/<id>.json)
  int threads = 0;              // intra-op threads; 0 = one per hardware thread
  int repetitions = 9;          // Google Benchmark repetitions, interleaved
  double min_time = 0.1;        // seconds per repetition
  std::string device = "auto";  // auto | cpu | cuda
  uint64_t seed = 0;
  bool list = false;         // print the trick's variants and cases, run nothing
  bool fingerprint = false;  // print the reproduced variant's fingerprint as JSON
  bool check_only = false;   // checks and memory only, no timing
  bool help = false;
  TimingBackends::Switches backend_switches;  // the timing backends' flags (flush_l2)
  std::vector<std::string> benchmark_flags;   // --benchmark_* passed through
};

// Unknown flags, malformed or out-of-range numbers and unknown devices are errors,
// described in *error (one line, without the program name); *opts is then unchanged.
bool ParseRunOptions(const std::vector<std::string>& args, RunOptions* opts, std::string* error);

// The --help text: what the binary does, every flag, the backends' notes, exit status.
std::string RunUsage();

}  // namespace trickbench
