#include "run_all/options.h"

#include <set>

#include "common/flags.h"
#include "results/status.h"

namespace trickbench {
namespace run_all {
namespace {

constexpr char kHeader[] = R"(usage: bazel run //benches:run_all -- [flags]

Runs every trick binary in its own process, one after another, each with a time
limit; records each one's outcome and keeps going. Results land in one folder:
<id>.json, <id>.log, index.json (rewritten after each trick; "complete": true once the
run is over) and the report (report.json, report.md, report.html).
Outcomes: )";

constexpr char kFooter[] = R"(  --benchmark_*=...    forwarded to every trick binary (Google Benchmark's flags)

SIGINT (Ctrl-C) or SIGTERM stops the running trick (its whole process group), records
it and the run as interrupted in index.json ("complete": false) and exits 128+signal.
Exit status: 0 when every trick was measured or skipped, 1 when any was invalid,
failed, crashed or timed out (all results are still written), 2 bad command line.
)";

constexpr char kForwarded[] = "forwarded to every trick binary (see its --help)";

// Flags run_all hands on verbatim: the trick binary's options parse them.
const std::set<std::string>& ForwardedNames() {
  static const std::set<std::string> names = {"min_time", "repetitions", "threads", "seed",
                                              "device",   "check_only",  "flush_l2"};
  return names;
}

// Where the forwarded values land while parsing: only their spelling matters.
struct ForwardedValues {
  std::string min_time, repetitions, threads, seed, device;
  bool check_only = false, flush_l2 = false;
};

void Declare(Flags* flags, Options* o, ForwardedValues* fwd, std::vector<std::string>* pass) {
  flags->String("out_dir", &o->out_dir,
                "output folder (default: results/run-<UTC time> under the workspace\n"
                "when run by `bazel run`, else under the current folder)")
      .Seconds("timeout", &o->timeout, 86400, "time limit per trick (default 300)")
      .List("only", &o->only, "run only these tricks")
      .List("skip", &o->skip, "run all but these")
      .Bool("list", &o->list, "print the trick ids and exit")
      .Bool("help", &o->help, "this text")
      .String("min_time", &fwd->min_time, kForwarded)
      .String("repetitions", &fwd->repetitions, kForwarded)
      .String("threads", &fwd->threads, kForwarded)
      .String("seed", &fwd->seed, kForwarded)
      .String("device", &fwd->device, kForwarded)
      .Bool("check_only", &fwd->check_only, kForwarded)
      .Bool("flush_l2", &fwd->flush_l2, "forwarded to every trick binary (CUDA builds)")
      .PassThrough("--benchmark_", pass)
      .Positional(&o->binaries);
}

}  // namespace

bool ParseOptions(const std::vector<std::string>& args, Options* options, std::string* error) {
  Options parsed;
  ForwardedValues fwd;
  std::vector<std::string> pass;
  Flags flags("run_all");
  Declare(&flags, &parsed, &fwd, &pass);
  if (!flags.Parse(args, error)) return false;
  for (const std::string& arg : flags.Seen()) {
    const std::string name = arg.substr(2, arg.find('=') - 2);
    if (ForwardedNames().count(name) || arg.rfind("--benchmark_", 0) == 0) {
      parsed.forward.push_back(arg);
    }
  }
  *options = parsed;
  return true;
}

std::string Usage() {
  Options o;
  ForwardedValues fwd;
  std::vector<std::string> pass;
  Flags flags("run_all");
  Declare(&flags, &o, &fwd, &pass);
  std::string outcomes;
  for (const results::RunOutcome outcome : results::AllRunOutcomes()) {
    outcomes += (outcomes.empty() ? "" : ", ") + results::Name(outcome);
  }
  return kHeader + outcomes + ".\n\n" + flags.Help() + kFooter;
}

}  // namespace run_all
}  // namespace trickbench
