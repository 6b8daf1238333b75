#include "run_all/run.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/output_dir.h"
#include "common/shared_data.h"
#include "results/run_index.h"
#include "results/status.h"
#include "run_all/budget.h"
#include "run_all/child.h"
#include "run_all/interrupt.h"
#include "run_all/options.h"
#include "run_all/plan.h"
#include "run_all/session.h"
#include "run_all/tricks.h"

namespace trickbench {
namespace run_all {
namespace {

namespace fs = std::filesystem;
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

std::string DefaultRunDir() { return RunsRoot() + "/run-" + UtcStamp(); }

// One side per build (--ab: old and new), each with the binaries of `ids`.
std::vector<Side> SidesFor(const Options& o, const std::vector<std::string>& ids) {
  std::vector<Side> sides;
  if (o.ab()) {
    sides.resize(2);
    sides[0].build = Build::kOld;
    sides[1].build = Build::kNew;
    for (const auto& id : ids) {
      sides[0].binaries.push_back(fs::absolute(fs::path(o.ab_old_dir) / id).string());
      sides[1].binaries.push_back(fs::absolute(fs::path(o.ab_new_dir) / id).string());
    }
    return sides;
  }
  sides.resize(1);
  std::map<std::string, std::string> by_id;
  for (const auto& b : o.binaries) by_id.emplace(TrickId(b), b);
  for (const auto& id : ids) sides[0].binaries.push_back(fs::absolute(by_id[id]).string());
  return sides;
}

// The order of the trick processes: round-robin, or for --ab the ABBA order from a seed
// (printed, and recorded in *ab).
std::vector<Job> PlanJobs(const Options& o, size_t tricks, std::optional<results::AbSession>* ab,
                          std::ostream& out) {
  if (!o.ab()) return RoundRobin(tricks, o.budgeted() ? kFirstPassProcesses : o.processes);
  const uint64_t seed =
      o.ab_seed
          ? *o.ab_seed
          : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) &
                static_cast<uint64_t>(INT64_MAX);
  std::vector<Job> jobs = AbbaOrder(tricks, o.processes, seed);
  ab->emplace();
  (*ab)->seed = static_cast<int64_t>(seed);
  (*ab)->old_bin_dir = fs::absolute(o.ab_old_dir).string();
  (*ab)->new_bin_dir = fs::absolute(o.ab_new_dir).string();
  for (const Job& j : jobs) (*ab)->order.push_back(RoleName(j.build));
  out << "run_all: A/B order seed " << seed << " (--ab_seed=" << seed << " repeats the order)"
      << std::endl;
  return jobs;
}

// A finished or unfinished run's folder as a flag names it (its report.json, say, names
// its folder), with its index and the path every message about it names.
struct RunFolder {
  fs::path folder;
  std::string index_path;  // folder/index.json
  results::RunIndex index;
};

// False with *error, prefixed by the flag, when the index cannot be read.
bool ReadRunFolder(const std::string& flag, const std::string& dir, RunFolder* run,
                   std::string* error) {
  run->folder = dir;
  if (fs::is_regular_file(run->folder)) run->folder = run->folder.parent_path();
  run->index_path = (run->folder / "index.json").string();
  try {
    run->index = results::ReadRunIndex(run->index_path);
  } catch (const std::exception& e) {
    *error = flag + ": " + e.what();
    return false;
  }
  return true;
}

// `--settle=RUN_DIR`: the run's folder, its tricks (those of the chosen `ids` it ran, in
// its order), and its one side with the index as it is; the run's own forwarded flags
// and time limit into *o. False with *error on a folder that cannot be settled.
bool SettleSide(Options* o, std::vector<std::string>* ids, std::vector<Side>* sides,
                std::string* dir, std::string* error) {
  RunFolder run;
  if (!ReadRunFolder("--settle", o->settle_dir, &run, error)) return false;
  const std::string& index_path = run.index_path;
  results::RunIndex& index = run.index;
  if (index.ab) {
    *error = "--settle: " + index_path +
             " is one build of an A/B session, whose processes are paired old/new: run "
             "another session";
    return false;
  }
  if (!index.complete) {
    *error = "--settle: " + index_path + " is of a run that did not finish" +
             (index.interrupted_by ? " (" + *index.interrupted_by + ")" : "") +
             ": only a finished run can be settled";
    return false;
  }
  std::vector<std::string> run_ids;
  for (const results::IndexEntry& e : index.tricks) {
    if (std::find(run_ids.begin(), run_ids.end(), e.id) != run_ids.end()) continue;
    if (std::find(ids->begin(), ids->end(), e.id) != ids->end()) {
      run_ids.push_back(e.id);
    } else if (o->only.empty() && o->skip.empty()) {
      *error = "--settle: no binary for " + e.id + ", a trick of " + index_path +
               " (build it, or leave it out with --skip)";
      return false;
    }
  }
  if (run_ids.empty()) {
    *error = "--settle: none of the chosen tricks ran in " + index_path;
    return false;
  }
  *ids = run_ids;
  o->forward = index.forwarded_flags;
  o->timeout = index.timeout_seconds;
  // As the run's processes were started, so that a settled run is not a mix of the two.
  o->exec = std::none_of(index.tricks.begin(), index.tricks.end(),
                         [](const results::IndexEntry& e) { return e.forked; });
  *sides = SidesFor(*o, *ids);
  Side& side = sides->front();
  *dir = fs::canonical(run.folder).string();
  side.dir = *dir;
  for (const results::IndexEntry& e : index.tricks) {
    const auto it = std::find(ids->begin(), ids->end(), e.id);
    if (it != ids->end() && e.process == 1 &&
        (e.outcome == results::RunOutcome::kSkipped ||
         e.outcome == results::RunOutcome::kInvalid)) {
      side.not_again.insert(it - ids->begin());
    }
  }
  side.index = std::move(index);
  std::string why;
  if (!CheckWritable(index_path, &why)) {
    *error = "--settle: cannot write " + index_path + ": " + why;
    return false;
  }
  return true;
}

// `--iterations_from=RUN_DIR`: per chosen trick that the run timed in its process 1,
// that process's result file (its iteration counts). False with *error when the folder
// has no readable index or timed none of the chosen tricks.
bool PinnedIterations(const Options& o, const std::vector<std::string>& ids,
                      std::map<std::string, std::string>* files, std::string* error) {
  RunFolder run;
  if (!ReadRunFolder("--iterations_from", o.iterations_from_dir, &run, error)) return false;
  const fs::path folder = fs::canonical(run.folder);
  for (const std::string& id : ids) {
    const std::optional<std::string> file = results::TimedProcess1Result(run.index, id);
    if (file) (*files)[id] = (folder / *file).string();
  }
  if (files->empty()) {
    *error = "--iterations_from: none of the chosen tricks was timed by a process 1 in " +
             run.index_path;
    return false;
  }
  return true;
}

}  // namespace

int RunAllMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options o;
  std::string error;
  if (!ParseOptions(args, &o, &error)) {
    err << "run_all: " << error << "\n";
    return results::kExitUsage;
  }
  if (o.help) {
    out << Usage();
    return 0;
  }
  std::vector<std::string> ids;
  if (!ChooseTricks(&o, &ids, &error)) {
    err << "run_all: " << error << "\n";
    return results::kExitUsage;
  }
  if (o.list) {
    for (const auto& id : ids) out << id << "\n";
    return 0;
  }
  if (ids.empty()) {
    err << "run_all: no trick to run\n";
    return results::kExitUsage;
  }
  std::vector<Side> sides;
  std::string dir;
  if (o.settling()) {
    if (!SettleSide(&o, &ids, &sides, &dir, &error)) {
      err << "run_all: " << error << "\n";
      return results::kExitUsage;
    }
  } else {
    sides = SidesFor(o, ids);
  }
  std::map<std::string, std::string> pinned;
  if (!o.iterations_from_dir.empty() && !PinnedIterations(o, ids, &pinned, &error)) {
    err << "run_all: " << error << "\n";
    return results::kExitUsage;
  }

  // From here on SIGINT/SIGTERM stop the run in order (interrupt.h) instead of killing
  // run_all and orphaning the trick; released before the report, which is atomic.
  std::optional<InterruptLatch> latch(std::in_place);
  if (!o.forward.empty() && !o.settling()) {
    for (const Side& side : sides) {  // each build's parser speaks for itself
      const std::string rejection = ForwardedFlagsRejection(side.binaries.front(), o, *latch);
      if (latch->signal()) return 128 + latch->signal();
      if (!rejection.empty()) {
        err << "run_all: " << (side.build == Build::kOnly ? "" : RoleName(side.build) + " ")
            << ids.front() << " rejected the forwarded flags: " << rejection << "\n";
        return results::kExitUsage;
      }
    }
  }
  if (!o.settling())
    dir = MakeDir(o.out_dir.empty() ? DefaultRunDir() : o.out_dir, "--out_dir ", &error);
  if (dir.empty()) {
    err << "run_all: " << error << "\n";
    return results::kExitUsage;
  }
  // The data sets the data tricks share over the run's processes (common/shared_data.h):
  // made by the first process that needs one, removed when run_all returns.
  std::optional<RunDataDir> run_data;
  try {
    run_data.emplace();
  } catch (const std::runtime_error& e) {
    err << "run_all: no folder for the run's data sets: " << e.what() << "\n";
    return kExitSomeFailed;
  }
  if (o.settling()) {
    Session session(o, ids, std::move(sides), dir, out, err);
    if (const int status = session.Settle(*latch); status >= 0) return status;
    const int signal = latch->signal();
    latch.reset();
    return session.Finish(signal);
  }
  std::optional<results::AbSession> ab;
  const std::vector<Job> jobs = PlanJobs(o, ids.size(), &ab, out);
  Session session(o, ids, std::move(sides), dir, out, err);
  session.TimeIterationsOf(std::move(pinned));
  if (const int status = session.Start(ab); status >= 0) return status;
  const Session::Then then = o.budgeted() ? Session::Then::kAPlan : Session::Then::kNothing;
  if (const int status = session.RunJobs(jobs, then, *latch); status >= 0) return status;
  if (o.budgeted() && !latch->signal()) {
    if (const int status = session.SpendBudget(*latch); status >= 0) return status;
  }
  const int signal = latch->signal();
  if (!signal) latch.reset();  // the report is written atomically: no stop needed there
  return session.Finish(signal);
}

}  // namespace run_all
}  // namespace trickbench
