#include "run_all/run.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "common/atomic_file.h"
#include "common/output_dir.h"
#include "common/interference.h"
#include "reports/cli.h"
#include "results/run_index.h"
#include "results/status.h"
#include "run_all/child.h"
#include "run_all/interrupt.h"
#include "run_all/options.h"
#include "run_all/outcome.h"
#include "run_all/plan.h"

namespace trickbench {
namespace run_all {
namespace {

namespace fs = std::filesystem;
using results::RunOutcome;

std::string Id(const std::string& binary) { return fs::path(binary).filename().string(); }

std::string Clock(double seconds) {
  const int s = static_cast<int>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d:%02d", s / 60, s % 60);
  return buf;
}

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

bool IsExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// The trick binaries bound to this run_all when none is given on the command line (it
// was run directly, as bazel-bin/benches/run_all or a CMake build's run_all, not by
// `bazel run`, which passes them): the runfiles of //benches:run_all (its data), else
// the benches/ folder beside a CMake build's run_all. *searched lists where it looked.
std::vector<std::string> BoundTricks(std::string* searched) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const fs::path& dir : {fs::path(self.string() + ".runfiles") / "trickbench" / "benches",
                              self.parent_path() / "benches"}) {
    *searched += (searched->empty() ? "" : ", ") + dir.string();
    std::vector<std::string> found;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code same_ec;  // run_all is in its own runfiles: not a trick
      if (IsExecutableFile(it->path()) && !fs::equivalent(it->path(), self, same_ec)) {
        found.push_back(it->path().string());
      }
    }
    if (!found.empty()) {
      std::sort(found.begin(), found.end());
      return found;
    }
  }
  return {};
}

// The trick ids --only/--skip leave of `known` (in its order); false on an unknown id.
bool Select(const Options& o, const std::vector<std::string>& known, std::vector<std::string>* ids,
            std::string* error) {
  const std::set<std::string> known_set(known.begin(), known.end());
  for (const auto* list : {&o.only, &o.skip}) {
    for (const auto& id : *list) {
      if (!known_set.count(id)) {
        *error = "unknown trick '" + id + "' (known: " + Join(known_set) + ")";
        return false;
      }
    }
  }
  const std::set<std::string> only(o.only.begin(), o.only.end());
  const std::set<std::string> skip(o.skip.begin(), o.skip.end());
  for (const auto& id : known) {
    if ((only.empty() || only.count(id)) && !skip.count(id)) ids->push_back(id);
  }
  return true;
}

// An A/B session's tricks: those given to run_all (bazel run passes every trick), else
// every executable file of the old folder, that both folders have.
bool AbTricks(const Options& o, std::vector<std::string>* ids, std::string* error) {
  for (const std::string& dir : {o.ab_old_dir, o.ab_new_dir}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      *error = "--ab: " + dir + " is not a folder of trick binaries";
      return false;
    }
  }
  std::vector<std::string> candidates;
  for (const auto& b : o.binaries) candidates.push_back(Id(b));
  if (candidates.empty()) {
    for (const auto& e : fs::directory_iterator(o.ab_old_dir)) {
      if (IsExecutableFile(e.path())) candidates.push_back(e.path().filename().string());
    }
    std::sort(candidates.begin(), candidates.end());
  }
  for (const auto& id : candidates) {
    if (IsExecutableFile(fs::path(o.ab_old_dir) / id) &&
        IsExecutableFile(fs::path(o.ab_new_dir) / id)) {
      ids->push_back(id);
    }
  }
  if (ids->empty()) {
    *error = "--ab: no trick binary is in both " + o.ab_old_dir + " and " + o.ab_new_dir;
    return false;
  }
  return true;
}

// The trick binary's own parser is the one definition of what the forwarded flags
// accept: ask it (with --list, which parses everything and measures nothing) before
// anything is written, so a typo costs a second, not a run folder of failures.
// Returns the binary's complaint, "" when it accepts them (or fails for another reason,
// which the run itself will record).
std::string ForwardedFlagsRejection(const std::string& binary, const Options& o,
                                    const InterruptLatch& latch) {
  FILE* output = std::tmpfile();
  if (!output) return "";
  std::vector<std::string> argv = {binary, "--list"};
  argv.insert(argv.end(), o.forward.begin(), o.forward.end());
  const ChildExit e = RunInGroup(argv, fileno(output), 60, latch.flag());
  std::string text;
  std::rewind(output);
  for (int c; (c = std::fgetc(output)) != EOF;) text += static_cast<char>(c);
  std::fclose(output);
  if (!e.exited || e.exit_code != results::kExitUsage) return "";
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
}

// `dir` created and checked writable; "" with *error otherwise.
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

std::string DefaultRunDir() { return RunsRoot() + "/run-" + UtcStamp(); }

// Runs one process of a trick binary, its output into <id>.p<k>.log, and classifies
// how it ended.
results::IndexEntry RunTrick(const std::string& binary, int process, const std::string& dir,
                             const Options& o, const InterruptLatch& latch) {
  const std::string id = Id(binary);
  const std::string stem = dir + "/" + FileStem(id, process);
  const std::string result = stem + ".json";
  std::remove(result.c_str());  // a stale file from an earlier run is not this run's result
  const std::string log = stem + ".log";
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ChildExit e;
  if (fd < 0) {
    e.start_error = "cannot write " + log;
  } else {
    std::vector<std::string> argv = {binary, "--out=" + result,
                                     "--process=" + std::to_string(process)};
    argv.insert(argv.end(), o.forward.begin(), o.forward.end());
    e = RunInGroup(argv, fd, o.timeout, latch.flag());
    close(fd);
  }
  return Classify(id, process, e, dir, o.timeout);
}

// Involuntary context switches of every reaped child so far (the trick processes).
int64_t ChildrenInvoluntarySwitches() {
  struct rusage u;
  return getrusage(RUSAGE_CHILDREN, &u) == 0 ? u.ru_nivcsw : -1;
}

// What the machine did around the run (common/interference.h).
struct MachineProbe {
  double load_start = SampleMachineLoad().load_1min;
  double steal_start = SampleInterference().steal_seconds;
  int64_t switches_start = ChildrenInvoluntarySwitches();

  results::MachineState Now() const {
    results::MachineState m;
    m.load_start = load_start;
    m.load_end = SampleMachineLoad().load_1min;
    m.steal_seconds = std::max(0.0, SampleInterference().steal_seconds - steal_start);
    const int64_t switches = ChildrenInvoluntarySwitches();
    m.involuntary_switches =
        switches_start < 0 || switches < 0 ? -1 : std::max<int64_t>(0, switches - switches_start);
    return m;
  }
};

// One build's side of the run: its binaries, folder and index.
struct Side {
  Build build = Build::kOnly;
  std::vector<std::string> binaries;  // absolute, parallel to the run's trick ids
  std::string dir;
  results::RunIndex index;
  std::set<size_t> not_again;  // tricks skipped or invalid in their process 1
  size_t bad = 0;              // processes neither measured nor skipped
};

}  // namespace

int RunAllMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options o;
  std::string error;
  if (!ParseOptions(args, &o, &error)) {
    err << "run_all: " << error << "\n";
    return kExitUsage;
  }
  if (o.help) {
    out << Usage();
    return 0;
  }
  std::vector<std::string> known, ids;
  if (o.ab()) {
    if (!AbTricks(o, &known, &error)) {
      err << "run_all: " << error << "\n";
      return kExitUsage;
    }
  } else {
    if (o.binaries.empty()) {
      std::string searched;
      o.binaries = BoundTricks(&searched);
      if (o.binaries.empty()) {
        err << "run_all: no trick binary given, and none found in " << searched
            << ": run it as `bazel run //benches:run_all`, or name the binaries "
            << "(bazel-bin/benches/run_all bazel-bin/benches/<id>...)\n";
        return kExitUsage;
      }
    }
    // bazel run passes every trick binary as an argument; an id typed after `--` would
    // otherwise join them as a binary of its own and run twice (or fail late).
    for (const auto& b : o.binaries) {
      if (!IsExecutableFile(b)) {
        err << "run_all: " << b << " is not a trick binary (the arguments are the binaries; "
            << "to run some tricks, --only=" << Id(b) << ")\n";
        return kExitUsage;
      }
      if (std::find(known.begin(), known.end(), Id(b)) != known.end()) {
        err << "run_all: trick " << Id(b) << " is given twice\n";
        return kExitUsage;
      }
      known.push_back(Id(b));
    }
  }
  if (!Select(o, known, &ids, &error)) {
    err << "run_all: " << error << "\n";
    return kExitUsage;
  }
  if (o.list) {
    for (const auto& id : ids) out << id << "\n";
    return 0;
  }
  if (ids.empty()) {
    err << "run_all: no trick to run\n";
    return kExitUsage;
  }
  std::vector<Side> sides;
  if (o.ab()) {
    sides.resize(2);
    sides[0].build = Build::kOld;
    sides[1].build = Build::kNew;
    for (const auto& id : ids) {
      sides[0].binaries.push_back(fs::absolute(fs::path(o.ab_old_dir) / id).string());
      sides[1].binaries.push_back(fs::absolute(fs::path(o.ab_new_dir) / id).string());
    }
  } else {
    sides.resize(1);
    std::map<std::string, std::string> by_id;
    for (const auto& b : o.binaries) by_id.emplace(Id(b), b);
    for (const auto& id : ids) sides[0].binaries.push_back(fs::absolute(by_id[id]).string());
  }

  // From here on SIGINT/SIGTERM stop the run in order (interrupt.h) instead of killing
  // run_all and orphaning the trick; released before the report, which is atomic.
  std::optional<InterruptLatch> latch(std::in_place);
  if (!o.forward.empty()) {
    for (const Side& side : sides) {  // each build's parser speaks for itself
      const std::string rejection = ForwardedFlagsRejection(side.binaries.front(), o, *latch);
      if (latch->signal()) return 128 + latch->signal();
      if (!rejection.empty()) {
        err << "run_all: " << (side.build == Build::kOnly ? "" : RoleName(side.build) + " ")
            << ids.front() << " rejected the forwarded flags: " << rejection << "\n";
        return kExitUsage;
      }
    }
  }
  const std::string dir = MakeDir(o.out_dir.empty() ? DefaultRunDir() : o.out_dir, "--out_dir ",
                                  &error);
  if (dir.empty()) {
    err << "run_all: " << error << "\n";
    return kExitUsage;
  }

  std::vector<Job> jobs;
  std::optional<results::AbSession> ab;
  if (o.ab()) {
    const uint64_t seed =
        o.ab_seed ? *o.ab_seed
                  : static_cast<uint64_t>(
                        std::chrono::system_clock::now().time_since_epoch().count()) &
                        static_cast<uint64_t>(INT64_MAX);
    jobs = AbbaOrder(ids.size(), o.processes, seed);
    ab.emplace();
    ab->seed = static_cast<int64_t>(seed);
    ab->old_bin_dir = fs::absolute(o.ab_old_dir).string();
    ab->new_bin_dir = fs::absolute(o.ab_new_dir).string();
    for (const Job& j : jobs) ab->order.push_back(RoleName(j.build));
    out << "run_all: A/B order seed " << seed << " (--ab_seed=" << seed << " repeats the order)"
        << std::endl;
  } else {
    jobs = RoundRobin(ids.size(), o.processes);
  }
  const MachineProbe machine;
  bool write_failed = false;
  auto write_index = [&](Side& side) {
    if (!results::WriteRunIndex(side.dir + "/index.json", side.index, &error)) {
      err << "run_all: " << error << "\n";
      write_failed = true;
    }
    return !write_failed;
  };
  for (Side& side : sides) {
    side.dir = side.build == Build::kOnly ? dir : MakeDir(dir + "/" + RoleName(side.build), "", &error);
    if (side.dir.empty()) {
      err << "run_all: " << error << "\n";
      return kExitSomeFailed;
    }
    results::RunIndex& index = side.index;
    index.started = UtcStamp("%FT%TZ");
    index.out_dir = side.dir;
    index.timeout_seconds = o.timeout;
    index.forwarded_flags = o.forward;
    index.processes = o.processes;
    index.machine = machine.Now();
    index.machine.load_end = -1;  // not ended yet
    if (ab) {
      index.ab = *ab;
      index.ab->role = RoleName(side.build);
    }
    if (!write_index(side)) return kExitSomeFailed;  // written before the first trick: see run.h
  }
  Side* by_build[3] = {nullptr, nullptr, nullptr};
  for (Side& side : sides) by_build[static_cast<int>(side.build)] = &side;
  out << "run_all: " << ids.size() << " tricks x " << o.processes << " processes"
      << (o.ab() ? " x 2 builds" : "") << ", results in " << dir << std::endl;

  const auto start = std::chrono::steady_clock::now();
  size_t done = 0, not_run = 0;
  for (size_t i = 0; i < jobs.size() && !latch->signal(); ++i) {
    const Job& job = jobs[i];
    Side& side = *by_build[static_cast<int>(job.build)];
    if (side.not_again.count(job.trick)) {
      ++not_run;
      continue;
    }
    const std::string& id = ids[job.trick];
    char line[256];
    std::snprintf(line, sizeof line, "[%zu/%zu] %-28s p%-3d%-4s ", i + 1, jobs.size(), id.c_str(),
                  job.process, RoleName(job.build).c_str());
    out << line << std::flush;
    const results::IndexEntry entry =
        RunTrick(side.binaries[job.trick], job.process, side.dir, o, *latch);
    ++done;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::snprintf(line, sizeof line, "%-8s %6.1fs  (elapsed %s)", Name(entry.outcome).c_str(),
                  entry.seconds, Clock(elapsed).c_str());
    out << line << (entry.reason.empty() ? "" : "  ") << entry.reason.substr(0, 160) << std::endl;
    side.index.tricks.push_back(entry);
    if (entry.outcome != RunOutcome::kOk && entry.outcome != RunOutcome::kSkipped) ++side.bad;
    // Another process of a trick that cannot run here (skipped) or gives a wrong
    // answer (invalid: no speedup is reported) would measure nothing new.
    if (job.process == 1 && o.processes > 1 &&
        (entry.outcome == RunOutcome::kSkipped || entry.outcome == RunOutcome::kInvalid)) {
      side.not_again.insert(job.trick);
      out << "        " << id << " " << Name(entry.outcome) << " in process 1: not run again"
          << std::endl;
    }
    if (entry.exit_code == results::kExitUsage && entry.outcome == RunOutcome::kFailed) {
      side.index.finished = UtcStamp("%FT%TZ");
      side.index.machine = machine.Now();
      write_index(side);
      err << "run_all: " << id << " rejected the forwarded flags; stopping (see " << side.dir
          << "/" << entry.log << ")\n";
      return kExitUsage;
    }
    if (!write_index(side)) return kExitSomeFailed;
  }
  const results::MachineState machine_end = machine.Now();
  for (Side& side : sides) {
    side.index.finished = UtcStamp("%FT%TZ");
    side.index.machine = machine_end;
  }
  if (const int signal = latch->signal()) {
    for (Side& side : sides) {
      side.index.interrupted_by = SignalName(signal);
      write_index(side);
    }
    err << "run_all: " << SignalName(signal) << ": stopped after " << done << " of "
        << jobs.size() - not_run << " trick processes; index (incomplete): " << dir
        << (o.ab() ? "/{old,new}" : "") << "/index.json\n";
    return 128 + signal;
  }
  latch.reset();
  size_t bad = 0;
  for (Side& side : sides) {
    side.index.complete = true;
    if (!write_index(side)) return kExitSomeFailed;
    bad += side.bad;
  }
  out << "run_all: " << (done - bad) << " of " << done << " trick processes measured or skipped";
  if (not_run > 0) out << " (" << not_run << " not run again after process 1)";
  out << "; index: " << dir << (o.ab() ? "/{old,new}" : "") << "/index.json\n";
  // The report (reports/SCHEMA.md): statistics, verdicts, Markdown and HTML; one per build.
  for (const Side& side : sides) {
    std::vector<std::string> report_paths;
    if (!reports::WriteRunReport(side.dir, &report_paths, &error)) {
      err << "run_all: no report" << (o.ab() ? " for " + side.dir : "") << ": " << error << "\n";
      return kExitSomeFailed;
    }
    for (const auto& p : report_paths) out << "run_all: report: " << p << "\n";
  }
  if (o.ab()) {
    out << "run_all: compare them: bazel run //reports:compare -- " << dir << "/old/report.json "
        << dir << "/new/report.json\n";
  }
  return bad == 0 ? 0 : kExitSomeFailed;
}

}  // namespace run_all
}  // namespace trickbench
