#include "run_all/session.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "common/atomic_file.h"
#include "common/interference.h"
#include "common/output_dir.h"
#include "reports/cli.h"
#include "reports/load.h"
#include "results/status.h"
#include "run_all/budget.h"
#include "run_all/child.h"
#include "run_all/fork_client.h"
#include "run_all/outcome.h"
#include "run_all/run.h"
#include "run_all/tricks.h"

namespace trickbench {
namespace run_all {
namespace {

namespace fs = std::filesystem;
using results::RunOutcome;

std::string Clock(double seconds) {
  const int s = static_cast<int>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d:%02d", s / 60, s % 60);
  return buf;
}

// The result file of the trick's process 1 in `side`, when it timed: the iteration
// counts a later process uses; "" otherwise, and the process calibrates its own.
std::string Process1Result(const Side& side, const std::string& id) {
  const std::optional<std::string> file = results::TimedProcess1Result(side.index, id);
  return file ? side.dir + "/" + *file : "";
}

// Runs one process of a trick binary, its output into <id>.p<k>.log, and classifies
// how it ended. A later process times process 1's iteration counts (`iterations_from`).
// With a `server` (run_all's default) the process is a fork of it; when the server runs
// nothing (it refused, or has gone), an exec'd process instead, and *fallback says why.
results::IndexEntry RunTrick(const std::string& binary, int process, const std::string& dir,
                             const std::string& iterations_from, const Options& o,
                             const InterruptLatch& latch, ForkServer* server,
                             std::string* fallback) {
  const std::string id = TrickId(binary);
  const std::string stem = dir + "/" + FileStem(id, process);
  const std::string result = stem + ".json";
  std::remove(result.c_str());  // a stale file from an earlier run is not this run's result
  const std::string log = stem + ".log";
  std::vector<std::string> args = {"--out=" + result, "--process=" + std::to_string(process)};
  if (!iterations_from.empty()) args.push_back("--iterations_from=" + iterations_from);
  args.insert(args.end(), o.forward.begin(), o.forward.end());
  ChildExit e;
  if (server) {
    e = server->Run(args, log, o.timeout, latch.flag());
    if (!e.started) *fallback = e.start_error;
  }
  const bool forked = e.started;
  if (!forked) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      e.start_error = "cannot write " + log;
    } else {
      args.insert(args.begin(), binary);
      e = RunInGroup(args, fd, o.timeout, latch.flag());
      close(fd);
    }
  }
  results::IndexEntry entry = Classify(id, process, e, dir, o.timeout);
  entry.forked = forked;
  return entry;
}

// Involuntary context switches of every reaped child so far (the trick processes).
int64_t ChildrenInvoluntarySwitches() {
  struct rusage u;
  return getrusage(RUSAGE_CHILDREN, &u) == 0 ? u.ru_nivcsw : -1;
}

// A settled run's machine record: its start as it was, its end now, and the settle's
// steal time and preemptions added to the run's (-1 stays unknown).
results::MachineState Added(const results::MachineState& run, const results::MachineState& more) {
  results::MachineState m = run;
  m.load_end = more.load_end;
  m.steal_seconds = run.steal_seconds + more.steal_seconds;
  m.involuntary_switches = run.involuntary_switches < 0 || more.involuntary_switches < 0
                               ? -1
                               : run.involuntary_switches + more.involuntary_switches;
  return m;
}

}  // namespace

std::string MakeDir(const std::string& dir, const std::string& flag, std::string* error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string why;
  if (ec || !CheckWritable(dir + "/index.json", &why)) {
    *error = "cannot write into " + flag + dir + ": " + (ec ? ec.message() : why);
    return "";
  }
  return fs::canonical(dir).string();
}

MachineProbe::MachineProbe()
    : load_start(SampleMachineLoad().load_1min),
      steal_start(SampleInterference().steal_seconds),
      switches_start(ChildrenInvoluntarySwitches()) {}

results::MachineState MachineProbe::Now() const {
  results::MachineState m;
  m.load_start = load_start;
  m.load_end = SampleMachineLoad().load_1min;
  m.steal_seconds = std::max(0.0, SampleInterference().steal_seconds - steal_start);
  const int64_t switches = ChildrenInvoluntarySwitches();
  m.involuntary_switches =
      switches_start < 0 || switches < 0 ? -1 : std::max<int64_t>(0, switches - switches_start);
  return m;
}

int Session::Start(const std::optional<results::AbSession>& ab) {
  std::string error;
  for (Side& side : sides_) {
    side.dir =
        side.build == Build::kOnly ? dir_ : MakeDir(dir_ + "/" + RoleName(side.build), "", &error);
    if (side.dir.empty()) {
      err_ << "run_all: " << error << "\n";
      return kExitSomeFailed;
    }
    results::RunIndex& index = side.index;
    index.started = UtcStamp("%FT%TZ");
    index.out_dir = side.dir;
    index.timeout_seconds = o_.timeout;
    index.forwarded_flags = o_.forward;
    index.processes = o_.budgeted() ? kFirstPassProcesses : o_.processes;
    index.machine = machine_.Now();
    index.machine.load_end = -1;  // not ended yet
    if (ab) {
      index.ab = *ab;
      index.ab->role = RoleName(side.build);
    }
    if (!WriteIndex(side)) return kExitSomeFailed;
  }
  if (o_.budgeted()) {
    out_ << "run_all: " << ids_.size() << " tricks x " << kFirstPassProcesses
         << " processes, then a budget of "
         << (o_.budget_seconds ? std::to_string(static_cast<int>(*o_.budget_seconds)) + " s"
                               : "(" + DefaultBudgetRule() + ")")
         << " where intervals are widest, results in " << dir_ << std::endl;
  } else {
    out_ << "run_all: " << ids_.size() << " tricks x " << o_.processes << " processes"
         << (o_.ab() ? " x 2 builds" : "") << ", results in " << dir_ << std::endl;
  }
  if (!pinned_.empty()) {
    out_ << "run_all: " << pinned_.size() << " of " << ids_.size()
         << " tricks timed with the iterations per sample of " << o_.iterations_from_dir
         << " (its process 1s)" << std::endl;
  }
  return -1;
}

int Session::RunJobs(const std::vector<Job>& jobs, Then then, const InterruptLatch& latch,
                     const std::vector<double>* seconds_per_process, double budget, int* left_out) {
  Side* by_build[3] = {nullptr, nullptr, nullptr};
  for (Side& side : sides_) by_build[static_cast<int>(side.build)] = &side;
  planned_ += jobs.size();
  // In the last list a server ends after its binary's last job, and at once where the list
  // has none (a third of the tricks get no more processes after a default run's first
  // pass). A server is per binary, which an A/A session's two builds may share.
  const bool last_list = then == Then::kNothing;
  std::vector<std::string> binaries;
  for (const Job& job : jobs) {
    binaries.push_back(by_build[static_cast<int>(job.build)]->binaries[job.trick]);
  }
  if (last_list) StopServersNotIn(binaries);
  const std::vector<bool> last = LastOfEach(binaries);
  auto done_with = [&](size_t i) {
    const Side& side = *by_build[static_cast<int>(jobs[i].build)];
    if (last_list && (last[i] || side.not_again.count(jobs[i].trick))) {
      servers_.erase(binaries[i]);
    }
  };
  for (size_t i = 0; i < jobs.size() && !latch.signal(); ++i) {
    const Job& job = jobs[i];
    Side& side = *by_build[static_cast<int>(job.build)];
    ++numbered_;
    if (side.not_again.count(job.trick)) {
      ++not_run_;
      done_with(i);
      continue;
    }
    if (seconds_per_process && Elapsed() + (*seconds_per_process)[job.trick] > budget) {
      ++*left_out;
      done_with(i);
      continue;
    }
    const std::string& id = ids_[job.trick];
    char line[256];
    std::snprintf(line, sizeof line, "[%zu/%zu] %-28s p%-3d%-4s ", numbered_, planned_, id.c_str(),
                  job.process, RoleName(job.build).c_str());
    out_ << line << std::flush;
    const auto pinned = pinned_.find(id);
    std::string iterations_from = pinned != pinned_.end() ? pinned->second
                                  : job.process > 1       ? Process1Result(side, id)
                                                          : "";
    // In an A/B session, the process 1 that runs second times the counts of the other
    // build's, so that the two builds are compared like for like (reports/like_for_like.h):
    // calibrated separately, a quarter of the settings differed in their counts here.
    const Side* other = job.build == Build::kOld   ? by_build[static_cast<int>(Build::kNew)]
                        : job.build == Build::kNew ? by_build[static_cast<int>(Build::kOld)]
                                                   : nullptr;
    const bool other_counts = iterations_from.empty() && job.process == 1 && other;
    if (other_counts) iterations_from = Process1Result(*other, id);
    ForkServer* server = ServerFor(side.binaries[job.trick]);
    std::string fallback;
    results::IndexEntry entry = RunTrick(side.binaries[job.trick], job.process, side.dir,
                                         iterations_from, o_, latch, server, &fallback);
    std::string note;
    if (other_counts && !iterations_from.empty() && entry.exit_code == results::kExitUsage &&
        entry.outcome == RunOutcome::kFailed && !latch.signal()) {
      // Its variants or cases differ from the other build's: it calibrates its own, and
      // compare says the counts differ. The rerun's log replaces the refusal's, so the
      // refusal's reason (its log's last lines, whose end says why) goes into the progress
      // line.
      const std::string refusal = entry.reason;
      iterations_from.clear();
      entry = RunTrick(side.binaries[job.trick], job.process, side.dir, "", o_, latch, server,
                       &fallback);
      note = "  (refused the " + RoleName(other->build) +
             " build's iteration counts, calibrated its own: " +
             (refusal.size() > 240 ? "..." + refusal.substr(refusal.size() - 237) : refusal) + ")";
    }
    ++done_;
    std::snprintf(line, sizeof line, "%-8s %6.1fs  (elapsed %s)", Name(entry.outcome).c_str(),
                  entry.seconds, Clock(Elapsed()).c_str());
    out_ << line;
    if (entry.phase_seconds && entry.seconds > 0) {
      // How much of the process measured (results/phases.h); the report sums the run.
      std::snprintf(line, sizeof line, "  timed %2.0f%%",
                    100 * entry.phase_seconds->rounds / entry.seconds);
      out_ << line;
    }
    out_ << (entry.reason.empty() ? "" : "  ") << entry.reason.substr(0, 160) << note << std::endl;
    if (!fallback.empty()) {
      out_ << "        " << id << " exec'd, not forked: " << fallback << std::endl;
    }
    side.index.tricks.push_back(entry);
    if (entry.outcome != RunOutcome::kOk && entry.outcome != RunOutcome::kSkipped) ++side.bad;
    // Another process of a trick that cannot run here (skipped) or gives a wrong
    // answer (invalid: no speedup is reported) would measure nothing new.
    if (job.process == 1 && (o_.budgeted() || o_.processes > 1) &&
        (entry.outcome == RunOutcome::kSkipped || entry.outcome == RunOutcome::kInvalid)) {
      side.not_again.insert(job.trick);
      out_ << "        " << id << " " << Name(entry.outcome) << " in process 1: not run again"
           << std::endl;
    }
    if (entry.exit_code == results::kExitUsage && entry.outcome == RunOutcome::kFailed) {
      side.index.finished = UtcStamp("%FT%TZ");
      StopServers();
      side.index.machine = machine_.Now();
      WriteIndex(side);
      err_ << "run_all: " << id << " rejected the forwarded flags"
           << (iterations_from.empty() ? "" : " or --iterations_from=" + iterations_from)
           << "; stopping (see " << side.dir << "/" << entry.log << ")\n";
      return results::kExitUsage;
    }
    if (!WriteIndex(side)) return kExitSomeFailed;
    done_with(i);
  }
  return -1;
}

BudgetPlan Session::Plan(const results::RunBudget& b) {
  try {
    return PlanBudget(ids_, reports::MergeRun(dir_), sides_.front().index.tricks, b);
  } catch (const std::exception& e) {
    // A run that cannot be merged (every process failed, say) has no spreads to plan
    // on; the report will say what is wrong with it.
    out_ << "run_all: no budget plan: " << e.what() << std::endl;
    BudgetPlan none;
    none.added.assign(ids_.size(), 0);
    none.seconds_per_process.assign(ids_.size(), 0);
    return none;
  }
}

std::vector<Job> Session::Waves(const BudgetPlan& plan, const std::vector<int>& last_process,
                                results::RunBudget* b) {
  const Side& side = sides_.front();
  std::vector<Job> jobs;
  for (int wave = 1; wave <= kMaxProcessesPerTrick; ++wave) {
    for (size_t t = 0; t < ids_.size(); ++t) {
      if (side.not_again.count(t) || plan.added[t] < wave) continue;
      jobs.push_back({t, last_process[t] + wave, Build::kOnly});
      b->added[ids_[t]] = wave;
    }
  }
  b->towards_decision = std::min<int>(plan.towards_decision, jobs.size());
  return jobs;
}

int Session::SpendBudget(const InterruptLatch& latch) {
  Side& side = sides_.front();
  results::RunBudget b = NewBudget(Elapsed(), o_.budget_seconds);
  const BudgetPlan plan = Plan(b);
  // Process numbers go on from the first pass's.
  const std::vector<Job> jobs = Waves(plan, std::vector<int>(ids_.size(), kFirstPassProcesses), &b);
  int most = 0;
  for (const auto& [id, n] : b.added) most = std::max(most, n);
  side.index.processes = kFirstPassProcesses + most;
  side.index.budget = b;
  out_ << "run_all: first pass " << Clock(b.first_pass_seconds) << "; budget " << Clock(b.seconds)
       << ": " << jobs.size() << " more processes for " << b.added.size()
       << " tricks where the intervals are widest" << std::endl;
  if (!WriteIndex(side)) return kExitSomeFailed;
  int left_out = 0;
  const int status =
      RunJobs(jobs, Then::kNothing, latch, &plan.seconds_per_process, b.seconds, &left_out);
  side.index.budget->left_out = left_out;
  if (left_out > 0) {
    out_ << "run_all: " << left_out << " planned processes not started: the budget was spent"
         << std::endl;
  }
  if (!WriteIndex(side)) return kExitSomeFailed;
  return status;
}

int Session::Settle(const InterruptLatch& latch) {
  Side& side = sides_.front();
  resumed_ = true;
  results::RunBudget settle = SettleBudget(side.index, o_.budget_seconds);
  const BudgetPlan plan = Plan(settle);
  std::vector<int> last(ids_.size(), 0);
  for (const results::IndexEntry& e : side.index.tricks) {
    for (size_t t = 0; t < ids_.size(); ++t) {
      if (ids_[t] == e.id) last[t] = std::max(last[t], e.process);
    }
  }
  const std::vector<Job> jobs = Waves(plan, last, &settle);
  double planned_seconds = 0;
  for (const Job& j : jobs) planned_seconds += plan.seconds_per_process[j.trick];
  out_ << "run_all: settling " << dir_ << ": " << jobs.size() << " more processes for "
       << settle.added.size() << " tricks where the intervals are widest (about "
       << Clock(planned_seconds) << " of a budget of " << Clock(settle.seconds) << "), "
       << (o_.exec ? "exec'd" : "forked") << " as the run's processes were" << std::endl;
  int left_out = 0;
  const size_t done_before = done_;
  const int status =
      RunJobs(jobs, Then::kNothing, latch, &plan.seconds_per_process, settle.seconds, &left_out);
  if (latch.signal()) {
    // Every process that ended is complete in itself and stays; the run stays complete,
    // and its record says how many of the settle's processes never started.
    left_out = static_cast<int>(jobs.size() - (done_ - done_before));
    settle.rule += " (stopped by " + SignalName(latch.signal()) + ")";
  }
  // As SpendBudget's: `added` is what was planned, `left_out` the part of it not started.
  settle.left_out = left_out;
  std::map<std::string, int> count;
  for (const results::IndexEntry& e : side.index.tricks) ++count[e.id];
  side.index.budget = WithSettle(side.index, settle);
  for (const auto& [id, n] : count) side.index.processes = std::max(side.index.processes, n);
  if (left_out > 0) {
    out_ << "run_all: " << left_out << " planned processes not started" << std::endl;
  }
  if (!WriteIndex(side)) return kExitSomeFailed;
  return status;
}

ForkServer* Session::ServerFor(const std::string& binary) {
  if (o_.exec) return nullptr;
  std::unique_ptr<ForkServer>& server = servers_[binary];
  if (!server) server = std::make_unique<ForkServer>(binary);
  return server.get();
}

void Session::StopServersNotIn(const std::vector<std::string>& binaries) {
  const std::set<std::string> needed(binaries.begin(), binaries.end());
  for (auto it = servers_.begin(); it != servers_.end();) {
    it = needed.count(it->first) ? std::next(it) : servers_.erase(it);
  }
}

int Session::Finish(int signal) {
  StopServers();
  const results::MachineState machine_end = machine_.Now();
  for (Side& side : sides_) {
    side.index.finished = UtcStamp("%FT%TZ");
    side.index.machine = resumed_ ? Added(side.index.machine, machine_end) : machine_end;
  }
  const std::string where = dir_ + (o_.ab() ? "/{old,new}" : "") + "/index.json";
  if (signal && !resumed_) {
    for (Side& side : sides_) {
      side.index.interrupted_by = SignalName(signal);
      WriteIndex(side);
    }
    err_ << "run_all: " << SignalName(signal) << ": stopped after " << done_ << " of "
         << planned_ - not_run_ << " trick processes; index (incomplete): " << where << "\n";
    return 128 + signal;
  }
  size_t bad = 0;
  for (Side& side : sides_) {
    side.index.complete = true;
    if (!WriteIndex(side)) return kExitSomeFailed;
    bad += side.bad;
  }
  out_ << "run_all: " << (done_ - bad) << " of " << done_ << " trick processes measured or skipped";
  if (not_run_ > 0) out_ << " (" << not_run_ << " not run again after process 1)";
  out_ << "; index: " << where << "\n";
  // The report (reports/SCHEMA.md): statistics, verdicts, Markdown and HTML; one per build.
  std::string error;
  for (const Side& side : sides_) {
    std::vector<std::string> report_paths;
    if (!reports::WriteRunReport(side.dir, &report_paths, &error)) {
      err_ << "run_all: no report" << (o_.ab() ? " for " + side.dir : "") << ": " << error << "\n";
      return kExitSomeFailed;
    }
    for (const auto& p : report_paths) out_ << "run_all: report: " << p << "\n";
  }
  if (o_.ab()) {
    out_ << "run_all: compare them: bazel run //reports:compare -- " << dir_ << "/old/report.json "
         << dir_ << "/new/report.json\n";
  }
  if (signal) return 128 + signal;  // a settle stopped: its report is written all the same
  return bad == 0 ? 0 : kExitSomeFailed;
}

bool Session::WriteIndex(Side& side) {
  std::string error;
  if (results::WriteRunIndex(side.dir + "/index.json", side.index, &error)) return true;
  err_ << "run_all: " << error << "\n";
  return false;
}

double Session::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace run_all
}  // namespace trickbench
