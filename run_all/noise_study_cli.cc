// The noise_study program (NoiseStudyMain in noise_study.h): its flags, the plan of
// sessions, resuming a study folder, one run_all per session, then the analysis
// (noise_study.cc) and its summary.
#include "run_all/noise_study.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/output_dir.h"
#include "common/flags.h"
#include "common/user_path.h"
#include "reports/compare.h"
#include "reports/html_printer.h"
#include "reports/markdown_printer.h"
#include "reports/load.h"
#include "results/run_index.h"
#include "results/status.h"
#include "run_all/budget.h"
#include "run_all/options.h"
#include "run_all/run.h"
#include "stats/distributions.h"
#include "stats/summary.h"

namespace trickbench {
namespace run_all {
namespace noise {

namespace fs = std::filesystem;
using results::Json;

namespace {

constexpr char kUsage[] = R"(usage: bazel run //run_all:noise_study -- [flags]

How often compare raises a false alarm on this machine, and how large a slowdown it
catches. Runs whole run_all sessions of one build, then compares them with the rule
of //reports:compare:
  A/A: --sessions sessions with the same settings, every pair compared; a "faster" or
       "slower" outcome is a false alarm (per setting and pooled, with the
       Clopper-Pearson upper 95% bound).
  planted: --plant_sessions sessions per factor of --plants with
       --plant_slowdown=all:F forwarded (every non-baseline variant F times slower),
       each compared against every A/A session; "slower" is a detection, split by
       whether the setting's minimum detectable effect is within the planted size.
  between sessions: per setting, the spread of the A/A sessions' estimates in units
       of their own standard errors (h, an F test, and the part a session shares):
       what no number of processes in one run removes.
Every session after aa-1 times aa-1's iterations per sample (run_all
--iterations_from), as a gate timed against its baseline run would, so that every
pair compares like for like. Prints its estimated duration first (from earlier runs' index.json where there are
some), then the table; writes noise_study.json into the study folder, which holds one
run folder per session (aa-1, ..., plant-1.10-1, ...). A complete session in a folder
given with --reuse is not run again: a study can be resumed, and its parts run apart
(--part=aa, later --reuse=DIR --part=planted). With --noise=OTHER/noise_study.json the
comparisons add that study's session parts, as compare --noise does: given a study of
other sessions, it checks that they keep the A/A false alarms at alpha. Relative
paths (--out_dir, --reuse, --noise) are taken, under `bazel run`, from the folder it
was started in.

)";

struct StudyOptions {
  std::vector<std::string> binaries, tricks = DefaultTricks(), plants = {"1.05", "1.10"};
  int sessions = 12, plant_sessions = 2;
  int processes = 0;  // --processes: a fixed count per trick; 0: run_all's budget
  double budget = 0;  // --budget: run_all's, per session; 0: run_all's default rule
  std::string part = "all", out_dir, reuse, noise;
  bool exec = false;  // --exec, also in run_all_flags
  bool dry_run = false, help = false;
  std::vector<std::string> run_all_flags;  // given to every session's run_all, verbatim
  std::vector<double> factors;
};

// An assumed wall time per trick process where no earlier run says (about what the
// default run's budget allows: 10 minutes for 35 tricks x 5 processes).
constexpr double kAssumedProcessSeconds = 4;

void Declare(Flags* f, StudyOptions* o, std::string* rounds, std::string* min_time,
             std::string* threads, std::string* timeout) {
  f->Int("sessions", &o->sessions, 2, 100,
         "A/A sessions (default 12: 66 comparisons, enough for a\n"
         "per-setting bound of 7% with no false alarm)")
      .List("tricks", &o->tricks, "the tricks (default: a quick set spanning the categories)")
      .List("plants", &o->plants, "planted slowdown factors, each > 1 (default 1.05,1.10)")
      .Int("plant_sessions", &o->plant_sessions, 1, 100, "sessions per planted factor (default 2)")
      .Choice("part", &o->part, {"all", "aa", "planted"},
              "all (default), aa (A/A alone), planted (needs the A/A sessions, --reuse)")
      .String("out_dir", &o->out_dir,
              "the study folder (default <runs>/noise-study-<UTC time>, <runs>\n"
              "as for run_all's --out_dir)")
      .String("reuse", &o->reuse, "an earlier study folder: its complete sessions are kept")
      .String("noise", &o->noise,
              "another study's noise_study.json: compare with its session parts\n"
              "added, as compare --noise does")
      .Int("processes", &o->processes, 1, 1000,
           "run_all's --processes: a fixed count per trick (default: none,\n"
           "each session spends run_all's time budget, as a default run does)")
      .Seconds("budget", &o->budget, 7 * 86400,
               "run_all's --budget per session (default: run_all's own rule)")
      .String("rounds", rounds, "forwarded to run_all (and the tricks)")
      .String("min_time", min_time, "forwarded to run_all (and the tricks)")
      .String("threads", threads, "forwarded to run_all (and the tricks)")
      .String("timeout", timeout, "run_all's --timeout")
      .Bool("exec", &o->exec, "run_all's --exec: exec'd trick processes, not forked")
      .Bool("dry_run", &o->dry_run, "print the plan and the estimate, run nothing")
      .Bool("help", &o->help, "this text")
      .Positional(&o->binaries);
}

bool Parse(const std::vector<std::string>& args, StudyOptions* o, std::string* error) {
  std::string rounds, min_time, threads, timeout;
  Flags flags("noise_study");
  Declare(&flags, o, &rounds, &min_time, &threads, &timeout);
  if (!flags.Parse(args, error)) return false;
  if (o->help) return true;
  for (const std::string& a : flags.Seen()) {
    const std::string name = a.substr(2, a.find('=') - 2);
    if (name == "processes" || name == "budget" || name == "rounds" || name == "min_time" ||
        name == "threads" || name == "timeout" || name == "exec") {
      o->run_all_flags.push_back(a);
    }
  }
  if (flags.Given("processes") && flags.Given("budget")) {
    *error = "--budget is not for sessions of a fixed count (--processes)";
    return false;
  }
  for (const std::string& p : o->plants) {
    char* end = nullptr;
    const double f = std::strtod(p.c_str(), &end);
    if (*end != '\0' || !(f > 1 && f <= 10)) {
      *error = "bad value for --plants: '" + p + "' (expected factors above 1, at most 10)";
      return false;
    }
    o->factors.push_back(f);
  }
  // The user's folders, as they meant them under `bazel run` (common/user_path.h).
  o->out_dir = UserPath(o->out_dir);
  o->reuse = UserPath(o->reuse);
  o->noise = UserPath(o->noise);
  if (!o->reuse.empty() && !o->out_dir.empty()) {
    *error = "--reuse and --out_dir name the same thing: give one";
    return false;
  }
  if (o->part == "planted" && o->reuse.empty()) {
    *error =
        "--part=planted compares against the A/A sessions of an earlier study: give --reuse=DIR";
    return false;
  }
  std::set<std::string> known;
  for (const auto& b : o->binaries) known.insert(fs::path(b).filename().string());
  for (const auto& t : o->tricks) {
    if (!known.count(t)) {
      std::string k;
      for (const auto& s : known) k += (k.empty() ? "" : ", ") + s;
      *error = "unknown trick '" + t + "' (known: " + k + ")";
      return false;
    }
  }
  return true;
}

struct Session {
  std::string name;
  double factor = 0;  // 0: A/A
};

constexpr char kFirstSession[] = "aa-1";  // Plan's first: the one the others time alike

std::vector<Session> Plan(const StudyOptions& o) {
  std::vector<Session> out;
  out.push_back({kFirstSession, 0});
  for (int i = 2; i <= o.sessions; ++i) out.push_back({"aa-" + std::to_string(i), 0});
  // Planted sizes alternate so that drift over the study hits them alike.
  for (int i = 1; i <= o.plant_sessions; ++i) {
    for (double f : o.factors)
      out.push_back({"plant-" + FactorName(f) + "-" + std::to_string(i), f});
  }
  return out;
}

std::vector<std::string> RunAllArgs(const StudyOptions& o, const Session& s,
                                    const std::string& dir) {
  std::vector<std::string> args = o.binaries;
  std::string only;
  for (const auto& t : o.tricks) only += (only.empty() ? "" : ",") + t;
  args.push_back("--only=" + only);
  args.push_back("--out_dir=" + dir);
  args.insert(args.end(), o.run_all_flags.begin(), o.run_all_flags.end());
  if (s.factor > 0) args.push_back("--plant_slowdown=all:" + FactorName(s.factor));
  // Every session times the first one's iteration counts, as a gate would time its
  // baseline run's: every pair then compares like for like (reports/like_for_like.h).
  if (s.name != kFirstSession) {
    args.push_back("--iterations_from=" + (fs::path(dir).parent_path() / kFirstSession).string());
  }
  return args;
}

enum class State { kMissing, kComplete, kIncomplete };

// Whether `dir` holds this session, done; an error when it holds another one.
State SessionState(const StudyOptions& o, const Session& s, const std::string& dir,
                   std::string* error) {
  const std::string index_path = dir + "/index.json";
  if (!fs::exists(index_path)) return State::kMissing;
  const results::RunIndex index = results::ReadRunIndex(index_path);
  Options expected;
  std::string ignored;
  ParseOptions(RunAllArgs(o, s, dir), &expected, &ignored);
  std::set<std::string> ids;
  for (const auto& t : index.tricks) ids.insert(t.id);
  const std::set<std::string> want(o.tricks.begin(), o.tricks.end());
  // A budgeted session's process counts differ per trick; its budget record says how
  // it was run. A fixed one's count is the index's.
  const bool same_count =
      expected.budgeted()
          ? index.budget.has_value() &&
                (!expected.budget_seconds || index.budget->seconds == *expected.budget_seconds)
          : !index.budget && index.processes == expected.processes;
  // Exec'd processes (run_all --exec) make another session than forked ones.
  const bool forked = std::any_of(index.tricks.begin(), index.tricks.end(),
                                  [](const results::IndexEntry& t) { return t.forked; });
  const bool same_start = index.tricks.empty() || forked == !expected.exec;
  if (index.forwarded_flags != expected.forward || !same_count || !same_start ||
      (index.complete && ids != want)) {
    std::string flags;
    for (const auto& f : index.forwarded_flags) flags += " " + f;
    *error = dir + " holds another session (" +
             (index.budget ? "budget " + index.budget->rule
                           : "processes " + std::to_string(index.processes)) +
             ", flags" + (flags.empty() ? " none" : flags) + (forked ? "" : ", exec'd") +
             ", or other tricks) than this study asks for; give a new --out_dir";
    return State::kIncomplete;
  }
  return index.complete && fs::exists(dir + "/report.json") ? State::kComplete : State::kIncomplete;
}

// Wall seconds per trick process, from the run folders' indexes under `roots` (each a
// folder of run folders, or a run folder).
std::map<std::string, double> ProcessSeconds(const std::vector<std::string>& roots) {
  std::map<std::string, std::vector<double>> seen;
  for (const auto& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    std::vector<std::string> indexes;
    for (const auto& e : fs::directory_iterator(root, ec)) {
      if (fs::exists(e.path() / "index.json"))
        indexes.push_back((e.path() / "index.json").string());
    }
    std::sort(indexes.rbegin(), indexes.rend());  // run-<UTC time>: the newest first
    if (indexes.size() > 20) indexes.resize(20);
    for (const auto& path : indexes) {
      try {
        for (const auto& t : results::ReadRunIndex(path).tricks) {
          if (t.outcome == results::RunOutcome::kOk) seen[t.id].push_back(t.seconds);
        }
      } catch (const results::InputError&) {
        // Not ours to judge here: an unreadable index just gives no estimate.
      }
    }
  }
  std::map<std::string, double> out;
  for (const auto& [id, v] : seen) out[id] = stats::Median(v);
  return out;
}

std::string Minutes(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, seconds < 600 ? "%.1f min" : "%.0f min", seconds / 60);
  return buf;
}

}  // namespace

int NoiseStudyMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StudyOptions o;
  std::string error;
  if (!Parse(args, &o, &error)) {
    err << "noise_study: " << error << "\n";
    return results::kExitUsage;
  }
  if (o.help) {
    std::string rounds, min_time, threads, timeout;
    StudyOptions defaults;
    Flags flags("noise_study");
    Declare(&flags, &defaults, &rounds, &min_time, &threads, &timeout);
    out << kUsage << flags.Help();
    return 0;
  }
  std::string dir = o.reuse.empty() ? o.out_dir : o.reuse;
  if (dir.empty()) dir = RunsRoot() + "/noise-study-" + UtcStamp();
  std::error_code ec;
  if (!o.reuse.empty() && !fs::is_directory(dir, ec)) {
    err << "noise_study: --reuse: " << dir << " is not a study folder\n";
    return results::kExitUsage;
  }
  if (o.reuse.empty() && fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    err << "noise_study: --out_dir " << dir
        << " is not empty (to resume a study there: --reuse=" << dir << ")\n";
    return results::kExitUsage;
  }

  // Read before any session runs: a bad file must not cost a study's time.
  std::optional<reports::SessionParts> parts;
  try {
    if (!o.noise.empty()) parts = reports::LoadSessionParts(o.noise);
  } catch (const results::InputError& e) {
    err << "noise_study: --noise: " << e.what() << "\n";
    return results::kExitUsage;
  }

  // What to run, what is there already, and how long the rest takes.
  const std::vector<Session> plan = Plan(o);
  std::vector<const Session*> todo;
  std::vector<std::string> missing_aa;
  int reused = 0;
  error.clear();
  for (const Session& s : plan) {
    const bool wanted = o.part == "all" || (o.part == "aa") == (s.factor == 0);
    State state = State::kMissing;
    try {
      state = SessionState(o, s, dir + "/" + s.name, &error);
    } catch (const results::InputError& e) {
      error = e.what();
    }
    if (!error.empty()) {
      err << "noise_study: " << error << "\n";
      return results::kExitUsage;
    }
    if (state == State::kComplete) {
      ++reused;
    } else if (wanted) {
      todo.push_back(&s);
    } else if (s.factor == 0) {
      missing_aa.push_back(s.name);
    }
  }
  if (!missing_aa.empty()) {
    std::string names;
    for (const auto& n : missing_aa) names += (names.empty() ? "" : ", ") + n;
    err << "noise_study: --part=planted needs the A/A sessions; not complete in " << dir << ": "
        << names << " (run --part=aa first)\n";
    return results::kExitUsage;
  }
  const std::map<std::string, double> measured = ProcessSeconds({dir, RunsRoot()});
  double session_seconds = 0;
  int known = 0;
  for (const auto& t : o.tricks) {
    const auto it = measured.find(t);
    known += it != measured.end();
    session_seconds += (o.processes > 0 ? o.processes : kFirstPassProcesses) *
                       (it != measured.end() ? it->second : kAssumedProcessSeconds);
  }
  // A budgeted session: its budget, or the default rule's multiple of its first pass.
  if (o.processes == 0)
    session_seconds = o.budget > 0 ? o.budget : DefaultBudgetSeconds(session_seconds);
  out << "noise study: " << plan.size() << " sessions (" << o.sessions << " A/A, "
      << plan.size() - o.sessions << " planted) of " << o.tricks.size() << " tricks"
      << (o.processes > 0 ? " x " + std::to_string(o.processes) + " processes"
          : o.budget > 0  ? " under a budget of " + Minutes(o.budget)
                          : " under run_all's default budget")
      << " in " << dir << "\n"
      << "noise study: " << todo.size() << " to run, " << reused << " reused; estimated "
      << Minutes(session_seconds * todo.size()) << " (" << Minutes(session_seconds)
      << " a session; seconds per trick process from earlier runs for " << known << " of "
      << o.tricks.size() << " tricks, " << kAssumedProcessSeconds << " s assumed for the rest)"
      << std::endl;
  if (o.dry_run) {
    for (const Session* s : todo) {
      out << "  " << s->name << ": run_all";
      for (const auto& a : RunAllArgs(o, *s, dir + "/" + s->name)) {
        if (a.rfind("--", 0) == 0) out << " " << a;
      }
      out << "\n";
    }
    return 0;
  }

  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < todo.size(); ++i) {
    const Session& s = *todo[i];
    out << "\nnoise study: session " << s.name << " (" << i + 1 << " of " << todo.size() << ")"
        << std::endl;
    const int rc = RunAllMain(RunAllArgs(o, s, dir + "/" + s.name), out, err);
    if (rc != 0 && rc != kExitSomeFailed) {
      err << "noise_study: run_all stopped with exit status " << rc << " in session " << s.name
          << "; the sessions done are kept: resume with --reuse=" << dir << "\n";
      return rc;
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << "noise study: " << Minutes(elapsed) << " so far, about "
        << Minutes(elapsed / (i + 1) * (todo.size() - i - 1)) << " to go" << std::endl;
  }

  std::vector<reports::Report> aa;
  std::vector<std::pair<double, reports::Report>> planted;
  try {
    for (const Session& s : plan) {
      const std::string path = dir + "/" + s.name + "/report.json";
      if (s.factor == 0) {
        aa.push_back(reports::LoadReportOrResult(path));
      } else if (o.part != "aa") {
        planted.emplace_back(s.factor, reports::LoadReportOrResult(path));
      }
    }
  } catch (const results::InputError& e) {
    err << "noise_study: " << e.what() << "\n";
    return kExitSomeFailed;
  }
  const StudyResult result = AnalyzeStudy(aa, planted, {}, parts ? &*parts : nullptr);
  Json j = ToJson(result);
  j["study_dir"] = fs::canonical(dir).string();
  j["tricks"] = o.tricks;
  j["run_all_flags"] = o.run_all_flags;
  j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // One document, one printer per format: the terminal gets the Markdown.
  const reports::doc::Document document = StudyDocument(result);
  const std::string markdown = reports::doc::PrintMarkdown(document);
  const std::string json_path = dir + "/noise_study.json";
  for (const auto& [path, text] :
       {std::pair<std::string, std::string>{json_path, j.dump(2) + "\n"},
        {dir + "/noise_study.md", markdown},
        {dir + "/noise_study.html", reports::doc::PrintHtml(document)}}) {
    if (!WriteFileAtomically(path, text, &error)) {
      err << "noise_study: " << error << "\n";
      return kExitSomeFailed;
    }
  }
  out << "\n" << markdown << "\nnoise study: " << json_path << " (and noise_study.md, .html)\n";
  return 0;
}

}  // namespace noise
}  // namespace run_all
}  // namespace trickbench
