#include "run_all/options.h"

#include <cstdint>
#include <set>

#include "common/flags.h"
#include "common/user_path.h"
#include "results/status.h"

namespace trickbench {
namespace run_all {
namespace {

constexpr char kHeader[] = R"(usage: bazel run //benches:run_all -- [flags]

Runs every trick binary in several fresh processes, one process at a time,
round-robin over the tricks (a p1, b p1, ..., a p2, b p2, ...) so that what differs
between processes (allocation layout, page placement, CPU frequency) and drift over
the run become measured variance; each process has a time limit, its outcome is
recorded and the run keeps going.

How many processes: by default a time budget (--budget). Every trick first runs 3
processes; the rest of the budget buys more processes, at most 24 per trick, for the
tricks whose timed settings' intervals they narrow most per second, first those
still imprecise (wider than +-10%), then towards +-2.5% (what a compare of two runs
needs to call a setting unchanged); the report says how many each target placed.
The choice looks only at how much each setting's process values spread (its 95%
upper bound from the first pass), never at the estimates, so intervals and tests
stay valid (stats/allocation.h). The default budget is 3.5 times the first pass's
wall time, at most 555 s, so a run of all tricks stays within 10 minutes (its first
pass took 2:40-3:15 forked on a 2-core VM, up to 6 minutes exec'd on a slow day),
and a run of a few tricks stays short.
--processes=P runs exactly P processes of every trick instead (an A/B session
always does: P defaults to 8 there). A trick skipped (needs CUDA) or invalid in its
process 1 is not run again. Process 1 of a trick calibrates each variant's
iterations per sample; the later processes time the same counts, so that the
count is not one more difference between them (--iterations_from: another run's
counts, for a compare against it like for like). Results land in one folder: <id>.p<k>.json and
<id>.p<k>.log per process k, index.json (rewritten after each process; "complete":
true once the run is over; with the load average at the start and end, the CPU steal
and the trick processes' preemptions during the run) and the report (report.json,
report.md, report.html). Run directly (bazel-bin/benches/run_all after `bazel build`,
or a CMake build's run_all) with no binaries named, it runs the trick binaries bound
to it (its runfiles, or the benches/ folder beside it).

A/B session (--ab=OLD_BIN_DIR,NEW_BIN_DIR): two builds' trick binaries (folders like
bazel-bin/benches; the tricks are those given to run_all, or with none given every
executable file in OLD_BIN_DIR, that are in both folders) run in one session: for
each trick process, the old build's and the new build's processes back to back, in
ABBA order (old,new then new,old, or the mirror, per two pairs, drawn from the seed,
which is printed and recorded). The build whose process 1 runs second times the
other's iteration counts (unless its variants or cases differ: then it calibrates
its own and says so), so that the builds compare like for like. The run folder
holds old/ and new/, each a complete run folder with its index (same ab.seed) and
report, for
  bazel run //reports:compare -- RUN/old/report.json RUN/new/report.json

Settling a finished run (--settle=RUN_DIR): where its report or a compare says
"imprecise" or "unknown", more processes of the same tricks, with the run's own
forwarded flags and time limit, started as its processes were (forked, or exec'd
when none of them was forked), added to that run folder (numbered on from each
trick's last process) and chosen by the budget's rule on the run's current
spreads, within --budget (default: as long as the run's processes took in all);
then its report is written again. Use the run's own build: the report warns when
the processes of one trick ran different builds. Not for an A/B session's folders
or an interrupted run.

Forked processes (the default; --exec for exec'd ones): an exec'd trick process spends
about 0.26 s loading LibTorch (its operator registration) before main(), a fifth of
a default run on a 2-core machine. So each trick binary is started once, as a server
(about 60 MB, until its trick has no process left to start), and every process
of that trick is a fork of it,
which runs the trick's main() from the top: its own process, allocator, threads and
result file, but the server's address-space layout, drawn once per run instead of
once per process. A server that cannot fork (it runs threads, or is gone) leaves its
trick to exec'd processes, with a note. index.json marks each forked process
("forked": true).

Folders named on the command line (--out_dir, --settle, --ab) may be relative: under
`bazel run` they are taken from the folder it was started in, not the binary's.
Outcomes: )";

constexpr char kFooter[] =
    R"(  --benchmark_*=...    forwarded to every trick binary (Google Benchmark's flags)

SIGINT (Ctrl-C) or SIGTERM stops the running trick (its whole process group), records
it and the run as interrupted in index.json ("complete": false) and exits 128+signal.
Exit status: 0 when every trick process was measured or skipped, 1 when any was
invalid, failed, crashed or timed out (all results are still written), 2 bad command
line. run_all sets each trick's --out and --process itself.
)";

constexpr char kForwarded[] = "forwarded to every trick binary (see its --help)";

// Flags run_all hands on verbatim: the trick binary's options parse them.
const std::set<std::string>& ForwardedNames() {
  static const std::set<std::string> names = {"min_time",   "repetitions", "rounds",
                                              "threads",    "seed",        "device",
                                              "check_only", "flush_l2",    "plant_slowdown"};
  return names;
}

// Where the forwarded values land while parsing: only their spelling matters.
struct ForwardedValues {
  std::string min_time, repetitions, rounds, threads, seed, device, plant_slowdown;
  bool check_only = false, flush_l2 = false;
};

void Declare(Flags* flags, Options* o, ForwardedValues* fwd, std::vector<std::string>* pass,
             std::string* ab, uint64_t* ab_seed, double* budget) {
  flags
      ->String("out_dir", &o->out_dir,
               "output folder (default: <runs>/run-<UTC time>, <runs> being\n"
               "$TRICKBENCH_RUNS_DIR, else runs/ under the workspace when run by\n"
               "`bazel run`, else ./runs)")
      .Seconds("timeout", &o->timeout, 86400, "time limit per trick process (default 300)")
      .Int("processes", &o->processes, 1, 1000,
           "exactly P fresh processes per trick, no budget (with --ab default " +
               std::to_string(kDefaultProcesses) + "); each gets --process=K")
      .Seconds("budget", budget, 7 * 86400,
               "seconds for all trick processes, first pass included\n"
               "(default: the first pass's time x 3.5, at most 555 s;\n"
               "not with --processes or --ab);\n"
               "with --settle, for the added processes")
      .String("settle", &o->settle_dir,
              "RUN_DIR: more processes for that finished run where its\n"
              "intervals are widest (above), and its report again")
      .String("iterations_from", &o->iterations_from_dir,
              "RUN_DIR: time every trick that run timed with the iterations\n"
              "per sample of its process 1 there (default: this run's process 1\n"
              "calibrates, its later processes use its counts), so that\n"
              "compare reads the two runs like for like; not with --settle")
      .String("ab", ab, "OLD_BIN_DIR,NEW_BIN_DIR: an A/B session of two builds (above)")
      .Uint64("ab_seed", ab_seed, "seed of the A/B order (default: from the clock, printed)")
      .List("only", &o->only, "run only these tricks")
      .List("skip", &o->skip, "run all but these")
      .Bool("exec", &o->exec,
            "start each trick process by exec, not as a fork of a server\n"
            "per trick binary that loaded LibTorch once (below)")
      .Bool("list", &o->list, "print the trick ids and exit")
      .Bool("help", &o->help, "this text")
      .String("min_time", &fwd->min_time, kForwarded)
      .String("rounds", &fwd->rounds, kForwarded)
      .String("repetitions", &fwd->repetitions, kForwarded)
      .String("threads", &fwd->threads, kForwarded)
      .String("seed", &fwd->seed, kForwarded)
      .String("device", &fwd->device, kForwarded)
      .Bool("check_only", &fwd->check_only, kForwarded)
      .String("plant_slowdown", &fwd->plant_slowdown,
              "VARIANT:FACTOR, forwarded (a noise study's planted slowdown)")
      .Bool("flush_l2", &fwd->flush_l2, "forwarded to every trick binary (CUDA builds)")
      .PassThrough("--benchmark_", pass)
      .Positional(&o->binaries);
}

}  // namespace

bool ParseOptions(const std::vector<std::string>& args, Options* options, std::string* error) {
  Options parsed;
  ForwardedValues fwd;
  std::vector<std::string> pass;
  std::string ab;
  uint64_t ab_seed = 0;
  double budget = 0;
  Flags flags("run_all");
  Declare(&flags, &parsed, &fwd, &pass, &ab, &ab_seed, &budget);
  if (!flags.Parse(args, error)) return false;
  parsed.processes_given = flags.Given("processes");
  // Folders the user named mean theirs under `bazel run` too (the binaries in
  // parsed.binaries are Bazel's, relative to the runfiles, and stay as they are).
  parsed.out_dir = UserPath(parsed.out_dir);
  parsed.settle_dir = UserPath(parsed.settle_dir);
  parsed.iterations_from_dir = UserPath(parsed.iterations_from_dir);
  if (parsed.settling()) {
    for (const char* other : {"processes", "ab", "out_dir", "iterations_from"}) {
      if (flags.Given(other)) {
        *error = std::string("--settle adds to an existing run folder: not with --") + other;
        return false;
      }
    }
    if (flags.Given("exec")) {
      *error = "--settle starts its processes as the run's were, forked or exec'd: not with --exec";
      return false;
    }
  }
  if (flags.Given("budget")) {
    if (parsed.processes_given || !ab.empty()) {
      *error = std::string("--budget is not for a run with ") +
               (parsed.processes_given ? "--processes (a fixed count)"
                                       : "--ab (an A/B session pairs a fixed count)");
      return false;
    }
    parsed.budget_seconds = budget;
  }
  if (!ab.empty()) {
    const auto comma = ab.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == ab.size() ||
        ab.find(',', comma + 1) != std::string::npos) {
      *error = "bad value for --ab: '" + ab + "' (expected OLD_BIN_DIR,NEW_BIN_DIR)";
      return false;
    }
    parsed.ab_old_dir = UserPath(ab.substr(0, comma));
    parsed.ab_new_dir = UserPath(ab.substr(comma + 1));
  }
  if (flags.Given("ab_seed")) {
    if (ab.empty()) {
      *error = "--ab_seed needs --ab";
      return false;
    }
    // The index stores it as a JSON integer a signed reader can hold.
    if (ab_seed > static_cast<uint64_t>(INT64_MAX)) {
      *error = "bad value for --ab_seed: '" + std::to_string(ab_seed) + "' (at most 2^63-1)";
      return false;
    }
    parsed.ab_seed = ab_seed;
  }
  for (const std::string& arg : flags.Seen()) {
    const std::string name = arg.substr(2, arg.find('=') - 2);
    if (ForwardedNames().count(name) || arg.rfind("--benchmark_", 0) == 0) {
      parsed.forward.push_back(arg);
    }
  }
  if (parsed.settling() && !parsed.forward.empty()) {
    *error = "--settle runs the run's own forwarded flags (its index.json): not " +
             parsed.forward.front();
    return false;
  }
  *options = parsed;
  return true;
}

std::string Usage() {
  Options o;
  ForwardedValues fwd;
  std::vector<std::string> pass;
  std::string ab;
  uint64_t ab_seed = 0;
  double budget = 0;
  Flags flags("run_all");
  Declare(&flags, &o, &fwd, &pass, &ab, &ab_seed, &budget);
  std::string outcomes;
  for (const results::RunOutcome outcome : results::AllRunOutcomes()) {
    outcomes += (outcomes.empty() ? "" : ", ") + results::Name(outcome);
  }
  return kHeader + outcomes + ".\n\n" + flags.Help() + kFooter;
}

}  // namespace run_all
}  // namespace trickbench
