#include "harness/options.h"

#include <algorithm>
#include <set>

#include "common/user_path.h"

namespace trickbench {
namespace {

constexpr char kIntro[] = R"(usage: <trick binary> [flags]

Runs one trickbench trick: the equivalence and active checks, then paired randomized
rounds (in each round every variant of a case runs one sample, back to back, in a
seeded random order), and writes one JSON result file (Google Benchmark's format plus a
"trickbench" object with the rounds; see reports/SCHEMA.md). One process gives one
value per comparison; run_all runs several processes and the report's intervals span
them.

)";

constexpr char kOutro[] = R"(
Exit status: 0 measured or skipped (with its reason), 2 bad command line,
3 invalid (a check failed), 1 other errors.
)";

// Switches of backends that are not in every build. A binary without the backend
// declares them anyway, so that giving one says what would make it work.
struct AbsentSwitch {
  const char* name;
  const char* needs;  // what build has it
  const char* lacks;  // what this binary then has no support for
};
constexpr AbsentSwitch kOptionalSwitches[] = {
    {"flush_l2", "a CUDA build (Bazel --config=cuda, or CMake with a CUDA LibTorch)", "CUDA"},
};

std::string Trimmed(double v) {
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Google Benchmark's flags are all refused (see the PassThrough below): this is only
// where the parser would put them.
std::vector<std::string>& RefusedBenchmarkFlags() {
  static std::vector<std::string> never;
  return never;
}

bool Registered(const std::string& name) {
  for (const auto& r : TimingBackends::Registered()) {
    for (const auto& s : r.switches) {
      if (s.name == name) return true;
    }
  }
  return false;
}

// Declares every flag of a trick binary, bound into *opts and, for switches of absent
// backends, into *absent.
void Declare(Flags& flags, RunOptions* opts, TimingBackends::Switches* absent) {
  flags
      .String("out", &opts->out,
              "result file (default: <runs>/<id>.json, <runs> being\n"
              "$TRICKBENCH_RUNS_DIR, else runs/ under the workspace when run by\n"
              "`bazel run`, else ./runs); written atomically; relative: from\n"
              "the folder `bazel run` was started in")
      .Int("threads", &opts->threads, 1, 1024,
           "intra-op threads (default: 1 on a machine with <= 4 hardware\n"
           "threads, else half of them; recorded in the context)")
      .Int("rounds", &opts->rounds, 1, 10000,
           "paired rounds per case (default " + std::to_string(kDefaultRounds) + ")")
      .Int("repetitions", &opts->rounds, 1, 10000, "the same as --rounds")
      .Seconds("min_time", &opts->min_time, 3600,
               "target seconds of one sample, one variant in one round (default " +
                   Trimmed(kDefaultMinTime) + ")")
      .Int("process", &opts->process, 1, 100000,
           "which of run_all's processes this is (recorded); above 1 the\n"
           "reproducibility check is left to process 1")
      .String("iterations_from", &opts->iterations_from,
              "a result file of this trick (run_all passes process 1's to the\n"
              "later processes): time each variant with its iterations per\n"
              "sample instead of calibrating, so that the processes of a run\n"
              "time the same work per sample (recorded)")
      .String("plant_slowdown", &opts->plant_slowdown,
              "VARIANT:FACTOR: make that variant's samples FACTOR times slower\n"
              "by busy-waiting (VARIANT `all`: every non-baseline variant); for\n"
              "the noise study, which checks that compare detects it")
      .Choice("device", &opts->device, {"auto", "cpu", "cuda"},
              "the device (default auto: cuda when available)")
      .Uint64("seed", &opts->seed, "seed for every RNG (default 0)")
      .Bool("check_only", &opts->check_only, "run the checks and memory measurement, no timing")
      .Bool("profile", &opts->profile,
            "after the checks, run each variant once more under LibTorch's\n"
            "profiler and write a Chrome trace per case and variant into\n"
            "<out without .json>.profile/ (open in ui.perfetto.dev); with\n"
            "--check_only: checks and traces, no timing")
      .Bool("fingerprint", &opts->fingerprint,
            "print the reproduced variant's fingerprint as JSON and exit")
      .Bool("list", &opts->list, "print the trick's cases and variants and exit")
      .Bool("serve", &opts->serve,
            "for run_all's fork servers, alone: fork a process per request\n"
            "on stdin (harness/fork_server.h)")
      .Bool("help", &opts->help, "this text")
      .PassThrough("--benchmark_", &RefusedBenchmarkFlags(), {"--benchmark_"},
                   "--out, --rounds or --min_time (the harness runs paired rounds, not Google "
                   "Benchmark's runner)");
  TimingBackends::Declare(flags, &opts->backend_switches);
  for (const AbsentSwitch& s : kOptionalSwitches) {
    if (!Registered(s.name)) {
      flags.Bool(s.name, &(*absent)[s.name],
                 std::string("needs ") + s.needs + "; not in this binary");
    }
  }
}

}  // namespace

int DefaultThreads(unsigned hardware_threads, std::string* rule) {
  const unsigned hw = std::max(1u, hardware_threads);
  const int threads = hw <= 4 ? 1 : static_cast<int>(hw / 2);
  *rule = "default: " +
          std::string(hw <= 4 ? "1 thread on a machine with <= 4 hardware threads"
                              : "half the hardware threads") +
          " (" + std::to_string(hw) + " here)";
  return threads;
}

bool ParseRunOptions(const std::vector<std::string>& args, RunOptions* opts, std::string* error) {
  RunOptions parsed = *opts;
  TimingBackends::Switches absent;
  Flags flags("trickbench");
  Declare(flags, &parsed, &absent);
  if (!flags.Parse(args, error)) return false;
  for (const AbsentSwitch& s : kOptionalSwitches) {
    if (absent[s.name]) {
      *error = "--" + std::string(s.name) + " needs " + s.needs + "; this binary has no " +
               s.lacks + " support";
      return false;
    }
  }
  parsed.out = UserPath(parsed.out);  // the caller's folder under `bazel run`
  if (!parsed.iterations_from.empty()) parsed.iterations_from = UserPath(parsed.iterations_from);
  *opts = std::move(parsed);
  return true;
}

std::string RunUsage() {
  RunOptions opts;
  TimingBackends::Switches absent;
  Flags flags("trickbench");
  Declare(flags, &opts, &absent);
  return kIntro + flags.Help() + kOutro + TimingBackends::Usage();
}

}  // namespace trickbench
