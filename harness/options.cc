#include "harness/options.h"

#include <set>

namespace trickbench {
namespace {

constexpr char kIntro[] = R"(usage: <trick binary> [flags] [--benchmark_* flags]

Runs one trickbench trick: the equivalence and active checks, then every variant as a
Google Benchmark benchmark (repetitions interleaved), and writes one JSON result file
(Google Benchmark's format plus a "trickbench" object; see reports/SCHEMA.md).

)";

constexpr char kOutro[] = R"(  --benchmark_*=...  passed to Google Benchmark (e.g. --benchmark_filter=no_grad)

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
  flags.String("out", &opts->out,
               "result file (default: results/<id>.json under the workspace when\n"
               "run by `bazel run`, else ./<id>.json); written atomically")
      .Int("threads", &opts->threads, 1, 1024, "intra-op threads (default: one per hardware thread)")
      .Int("repetitions", &opts->repetitions, 1, 10000,
           "repetitions per variant (default 9, at least 1)")
      .Seconds("min_time", &opts->min_time, 3600, "minimum time of one repetition (default 0.1)")
      .Choice("device", &opts->device, {"auto", "cpu", "cuda"},
              "the device (default auto: cuda when available)")
      .Uint64("seed", &opts->seed, "seed for every RNG (default 0)")
      .Bool("check_only", &opts->check_only, "run the checks and memory measurement, no timing")
      .Bool("fingerprint", &opts->fingerprint,
            "print the reproduced variant's fingerprint as JSON and exit")
      .Bool("list", &opts->list, "print the trick's cases and variants and exit")
      .Bool("help", &opts->help, "this text")
      .PassThrough("--benchmark_", &opts->benchmark_flags,
                   {"--benchmark_out", "--benchmark_repetitions", "--benchmark_min_time"},
                   "--out, --repetitions or --min_time");
  TimingBackends::Declare(flags, &opts->backend_switches);
  for (const AbsentSwitch& s : kOptionalSwitches) {
    if (!Registered(s.name)) {
      flags.Bool(s.name, &(*absent)[s.name], std::string("needs ") + s.needs + "; not in this binary");
    }
  }
}

}  // namespace

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
