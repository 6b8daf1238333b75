// One run_all session: the processes of its plan, one at a time, into a run folder and
// its index, then the reports (run.h says what a run is; this is how one is carried out).
//
//   std::vector<Side> sides = ...;                   // one, or old and new for --ab
//   Session session(options, ids, std::move(sides), dir, std::cout, std::cerr);
//   if (int s = session.Start(ab); s >= 0) return s;
//   const std::vector<Job> jobs = RoundRobin(ids.size(), 3);
//   if (int s = session.RunJobs(jobs, Session::Then::kNothing, latch); s >= 0) return s;
//   return session.Finish(latch.signal());
//
// Each step returns an exit status, or -1 to go on, so the caller stops at the first
// that fails and every index on disk still says what was done.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "results/run_index.h"
#include "run_all/budget.h"
#include "run_all/fork_client.h"
#include "run_all/interrupt.h"
#include "run_all/options.h"
#include "run_all/plan.h"

namespace trickbench {
namespace run_all {

// `dir` created and checked writable, as its canonical path; "" with *error otherwise
// (`flag` names where the folder came from, "--out_dir " or "").
std::string MakeDir(const std::string& dir, const std::string& flag, std::string* error);

// One build's side of the run: its binaries, folder and index.
struct Side {
  Build build = Build::kOnly;
  std::vector<std::string> binaries;  // absolute, parallel to the run's trick ids
  std::string dir;
  results::RunIndex index;
  std::set<size_t> not_again;  // tricks skipped or invalid in their process 1
  size_t bad = 0;              // processes neither measured nor skipped
};

// What the machine did around the run (common/interference.h): load, steal time and the
// trick processes' involuntary context switches since the probe was made.
struct MachineProbe {
  MachineProbe();
  results::MachineState Now() const;

 private:
  double load_start, steal_start;
  int64_t switches_start;
};

// One run of the planned trick processes into `dir`: the sides' folders and indexes,
// the processes in order, and the reports. Each step returns an exit status, or -1 to
// go on.
class Session {
 public:
  Session(const Options& o, std::vector<std::string> ids, std::vector<Side> sides, std::string dir,
          std::ostream& out, std::ostream& err)
      : o_(o),
        ids_(std::move(ids)),
        sides_(std::move(sides)),
        dir_(std::move(dir)),
        out_(out),
        err_(err) {}

  // `files`: per trick id, the result file whose iterations per sample every process of
  // it times (run_all --iterations_from); a trick not in it times its process 1's.
  void TimeIterationsOf(std::map<std::string, std::string> files) { pinned_ = std::move(files); }

  // The folders, and every index written before the first trick (see run.h).
  int Start(const std::optional<results::AbSession>& ab);

  // What may follow a list of jobs. A fork server holds about 60 MB of its own, so after
  // the last list each ends once its binary has no job left in it; before a plan (a
  // budgeted run's first pass) every server is kept, since the plan may start any trick.
  enum class Then { kNothing, kAPlan };

  // Every job in order, until the last or a stop request. With `budget` (seconds since
  // the run began), a job whose trick's process would end past it is not started, and
  // counted in *left_out.
  int RunJobs(const std::vector<Job>& jobs, Then then, const InterruptLatch& latch,
              const std::vector<double>* seconds_per_process = nullptr, double budget = 0,
              int* left_out = nullptr);

  // A budgeted run after its first pass: the rest of the budget planned (budget.h) on
  // the first pass's report, recorded in the index, and run, round-robin over the
  // tricks that got more, each process started only while it fits the budget.
  int SpendBudget(const InterruptLatch& latch);

  // `run_all --settle`: its one side holds a finished run's index. More processes,
  // planned as a budget's (budget.h SettleBudget) on the run's report, numbered on from
  // each trick's last process, recorded in the run's budget (WithSettle). A stop
  // request keeps what ran; Finish then writes the reports all the same.
  int Settle(const InterruptLatch& latch);

  // The indexes closed (interrupted, or complete and then the reports).
  int Finish(int signal);

 private:
  bool WriteIndex(Side& side);
  // The binary's fork server, started on first use; nullptr with --exec.
  ForkServer* ServerFor(const std::string& binary);
  // Ends the fork servers. Before the machine record is taken: a forked process's
  // rusage reaches run_all's RUSAGE_CHILDREN only when its server is reaped.
  void StopServers() { servers_.clear(); }
  // Ends the fork servers of binaries not in `binaries`.
  void StopServersNotIn(const std::vector<std::string>& binaries);
  // The extra processes `b` buys, on the run's report so far (none if it cannot be merged).
  BudgetPlan Plan(const results::RunBudget& b);
  // plan.added as jobs, round-robin in waves, trick t's numbered on from last_process[t];
  // each trick's count into b->added, and how many of them the second target placed into
  // b->towards_decision.
  std::vector<Job> Waves(const BudgetPlan& plan, const std::vector<int>& last_process,
                         results::RunBudget* b);

  const Options& o_;
  const std::vector<std::string> ids_;
  std::vector<Side> sides_;
  const std::string dir_;
  std::ostream& out_;
  std::ostream& err_;
  double Elapsed() const;

  const MachineProbe machine_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  size_t planned_ = 0, numbered_ = 0, done_ = 0, not_run_ = 0;
  bool resumed_ = false;                                        // settling a finished run (Settle)
  std::map<std::string, std::string> pinned_;                   // TimeIterationsOf
  std::map<std::string, std::unique_ptr<ForkServer>> servers_;  // by binary (ServerFor)
};

}  // namespace run_all
}  // namespace trickbench
