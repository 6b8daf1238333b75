// The trick binary's command line: its flags, their checks and the --help text.
//
//   RunOptions opts;
//   std::string error;
//   if (!ParseRunOptions({"--threads=2", "--rounds=20"}, &opts, &error)) {
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

// The defaults of one trick process. run_all runs each trick in several processes
// (run_all/options.h), and the statistics take one value per process, so a process
// needs enough rounds for a stable median, not a long run: 8 rounds of 20 ms samples
// cost 0.16 s per variant and case.
inline constexpr int kDefaultRounds = 8;
inline constexpr double kDefaultMinTime = 0.02;

// The intra-op thread count when --threads is not given, and the rule that chose it (for
// the context). Oversubscription is the largest noise source on a small shared machine:
// a trick's own threads, the OS and the neighbours need cores too, so one thread on a
// machine with 4 hardware threads or fewer, else half of them.
int DefaultThreads(unsigned hardware_threads, std::string* rule);

struct RunOptions {
  std::string out;                    // result file; "" = <RunsRoot()>/<id>.json
  int threads = 0;                    // intra-op threads; 0 = DefaultThreads()
  int rounds = kDefaultRounds;        // paired rounds per case (--repetitions is a synonym)
  double min_time = kDefaultMinTime;  // target seconds of one sample
  int process = 0;                    // which of run_all's processes (1-based); 0 = run alone
  std::string plant_slowdown;         // "VARIANT:FACTOR" (noise study); "" = none
  std::string iterations_from;        // a result file whose iteration counts to use; "" = calibrate
  std::string device = "auto";        // auto | cpu | cuda
  uint64_t seed = 0;
  bool list = false;         // print the trick's variants and cases, run nothing
  bool fingerprint = false;  // print the reproduced variant's fingerprint as JSON
  bool check_only = false;   // checks and memory only, no timing
  bool profile = false;      // a Chrome trace of one run per variant (harness/profile.h)
  bool serve = false;        // serve run_all's forks (harness/fork_server.h); alone only
  bool help = false;
  TimingBackends::Switches backend_switches;  // the timing backends' flags (flush_l2)
};

// Unknown flags, malformed or out-of-range numbers and unknown devices are errors,
// described in *error (one line, without the program name); *opts is then unchanged.
bool ParseRunOptions(const std::vector<std::string>& args, RunOptions* opts, std::string* error);

// The --help text: what the binary does, every flag, the backends' notes, exit status.
std::string RunUsage();

}  // namespace trickbench
