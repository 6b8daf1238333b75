// run_all: every trick binary in several fresh processes, one process at a time,
// round-robin over the tricks (plan.h), each with a time limit.
//
//   bazel run //benches:run_all                          # every trick, default budget
//   bazel run //benches:run_all -- --only=channels_last,no_grad_inference --processes=3
//   bazel run //benches:run_all -- --ab=/tmp/old-bin,bazel-bin/benches   # A/B session
//
// Bazel passes the trick binaries as leading arguments (benches/BUILD); the user's
// flags follow (options.h). A trick process that crashes, hangs or fails is recorded
// with its outcome (outcome.h) and the others still run. Everything lands in one folder:
// <id>.p<k>.json (process k's result), <id>.p<k>.log (its output), index.json
// (results/run_index.h: one entry per process, the machine's load and steal) and the
// report (reports/). An A/B session writes two such folders, old/ and new/, whose
// processes interleave in the seeded ABBA order of plan.h.
//
// The index is written before the first process starts and rewritten after each one, so
// a run that is stopped, however, leaves an index saying what was done; SIGINT and
// SIGTERM are caught (interrupt.h), passed on to the running trick's process group,
// and end the run with the index marked incomplete and exit status 128+signal.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace trickbench {
namespace run_all {

// Exit statuses: 0 and 2 (bad command line) are results/status.h's kExitOk and
// kExitUsage, shared with the trick binaries; run_all adds:
inline constexpr int kExitSomeFailed = 1;  // a trick was not measured or skipped, or a write failed

// args: argv[1..]. Progress goes to `out`, errors to `err`; returns the exit status.
int RunAllMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace run_all
}  // namespace trickbench
