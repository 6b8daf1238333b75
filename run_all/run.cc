#include "run_all/run.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>

#include "common/atomic_file.h"
#include "reports/cli.h"
#include "results/run_index.h"
#include "results/status.h"
#include "run_all/child.h"
#include "run_all/interrupt.h"
#include "run_all/options.h"
#include "run_all/outcome.h"

namespace trickbench {
namespace run_all {
namespace {

namespace fs = std::filesystem;
using results::RunOutcome;

std::string Id(const std::string& binary) { return fs::path(binary).filename().string(); }

std::string UtcStamp(const char* format) {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, format, std::gmtime(&t));
  return buf;
}

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

// The binaries --only/--skip leave, in the order given; false on an unknown id.
bool Select(const Options& o, std::vector<std::string>* todo, std::string* error) {
  std::set<std::string> known;
  for (const auto& b : o.binaries) known.insert(Id(b));
  for (const auto* ids : {&o.only, &o.skip}) {
    for (const auto& id : *ids) {
      if (!known.count(id)) {
        *error = "unknown trick '" + id + "' (known: " + Join(known) + ")";
        return false;
      }
    }
  }
  const std::set<std::string> only(o.only.begin(), o.only.end());
  const std::set<std::string> skip(o.skip.begin(), o.skip.end());
  for (const auto& b : o.binaries) {
    const std::string id = Id(b);
    if ((only.empty() || only.count(id)) && !skip.count(id)) todo->push_back(b);
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

// The run folder, created and checked writable; "" with *error otherwise.
std::string MakeRunDir(const Options& o, std::string* error) {
  std::string dir = o.out_dir;
  if (dir.empty()) {
    const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    dir = std::string(ws && *ws ? ws : ".") + "/results/run-" + UtcStamp("%Y%m%d-%H%M%S");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string why;
  if (ec || !CheckWritable(dir + "/index.json", &why)) {
    *error = "cannot write into --out_dir " + dir + ": " + (ec ? ec.message() : why);
    return "";
  }
  return fs::canonical(dir).string();
}

// Runs one trick binary, its output into <id>.log, and classifies how it ended.
results::IndexEntry RunTrick(const std::string& binary, const std::string& dir,
                             const Options& o, const InterruptLatch& latch) {
  const std::string id = Id(binary);
  const std::string result = dir + "/" + id + ".json";
  std::remove(result.c_str());  // a stale file from an earlier run is not this run's result
  const std::string log = dir + "/" + id + ".log";
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ChildExit e;
  if (fd < 0) {
    e.start_error = "cannot write " + log;
  } else {
    std::vector<std::string> argv = {binary, "--out=" + result};
    argv.insert(argv.end(), o.forward.begin(), o.forward.end());
    e = RunInGroup(argv, fd, o.timeout, latch.flag());
    close(fd);
  }
  return Classify(id, e, dir, o.timeout);
}

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
  std::vector<std::string> todo;
  if (!Select(o, &todo, &error)) {
    err << "run_all: " << error << "\n";
    return kExitUsage;
  }
  if (o.list) {
    for (const auto& b : todo) out << Id(b) << "\n";
    return 0;
  }
  if (todo.empty()) {
    err << "run_all: no trick to run\n";
    return kExitUsage;
  }
  for (auto& b : todo) b = fs::absolute(b).string();

  // From here on SIGINT/SIGTERM stop the run in order (interrupt.h) instead of killing
  // run_all and orphaning the trick; released before the report, which is atomic.
  std::optional<InterruptLatch> latch(std::in_place);
  if (!o.forward.empty()) {
    const std::string rejection = ForwardedFlagsRejection(todo.front(), o, *latch);
    if (latch->signal()) return 128 + latch->signal();
    if (!rejection.empty()) {
      err << "run_all: " << Id(todo.front()) << " rejected the forwarded flags: " << rejection
          << "\n";
      return kExitUsage;
    }
  }
  const std::string dir = MakeRunDir(o, &error);
  if (dir.empty()) {
    err << "run_all: " << error << "\n";
    return kExitUsage;
  }
  const std::string index_path = dir + "/index.json";
  results::RunIndex index;
  index.started = UtcStamp("%FT%TZ");
  index.out_dir = dir;
  index.timeout_seconds = o.timeout;
  index.forwarded_flags = o.forward;
  bool write_failed = false;
  auto write_index = [&] {
    if (!results::WriteRunIndex(index_path, index, &error)) {
      err << "run_all: " << error << "\n";
      write_failed = true;
    }
    return !write_failed;
  };
  if (!write_index()) return kExitSomeFailed;  // written before the first trick: see run.h
  out << "run_all: " << todo.size() << " tricks, results in " << dir << std::endl;

  const auto start = std::chrono::steady_clock::now();
  size_t bad = 0;
  for (size_t i = 0; i < todo.size() && !latch->signal(); ++i) {
    const std::string id = Id(todo[i]);
    char line[256];
    std::snprintf(line, sizeof line, "[%zu/%zu] %-28s ", i + 1, todo.size(), id.c_str());
    out << line << std::flush;
    const results::IndexEntry entry = RunTrick(todo[i], dir, o, *latch);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::snprintf(line, sizeof line, "%-8s %6.1fs  (elapsed %s)", Name(entry.outcome).c_str(),
                  entry.seconds, Clock(elapsed).c_str());
    out << line << (entry.reason.empty() ? "" : "  ") << entry.reason.substr(0, 160) << std::endl;
    index.tricks.push_back(entry);
    if (entry.outcome != RunOutcome::kOk && entry.outcome != RunOutcome::kSkipped) ++bad;
    if (entry.exit_code == results::kExitUsage && entry.outcome == RunOutcome::kFailed) {
      index.finished = UtcStamp("%FT%TZ");
      write_index();
      err << "run_all: " << id << " rejected the forwarded flags; stopping (see " << dir << "/"
          << entry.log << ")\n";
      return kExitUsage;
    }
    if (!write_index()) return kExitSomeFailed;
  }
  index.finished = UtcStamp("%FT%TZ");
  if (const int signal = latch->signal()) {
    index.interrupted_by = SignalName(signal);
    write_index();
    err << "run_all: " << SignalName(signal) << ": stopped after " << index.tricks.size()
        << " of " << todo.size() << " tricks; index (incomplete): " << index_path << "\n";
    return 128 + signal;
  }
  latch.reset();
  index.complete = true;
  if (!write_index()) return kExitSomeFailed;
  out << "run_all: " << (todo.size() - bad) << " of " << todo.size()
      << " tricks measured or skipped; index: " << index_path << "\n";
  // The report (reports/SCHEMA.md): statistics, verdicts, Markdown and HTML.
  std::vector<std::string> report_paths;
  if (!reports::WriteRunReport(dir, &report_paths, &error)) {
    err << "run_all: no report: " << error << "\n";
    return kExitSomeFailed;
  }
  for (const auto& p : report_paths) out << "run_all: report: " << p << "\n";
  return bad == 0 ? 0 : kExitSomeFailed;
}

}  // namespace run_all
}  // namespace trickbench
