// run_all: every trick binary in its own process, one after another, with a time limit.
//
//   bazel run //benches:run_all                          # every trick, default budget
//   bazel run //benches:run_all -- --only=channels_last,no_grad_inference --min_time=0.5
//
// Bazel passes the trick binaries as leading arguments (benches/BUILD); the user's
// flags follow. A trick that crashes, hangs or fails is recorded with its outcome and
// the others still run. Everything lands in one folder: <id>.json (the trick's result),
// <id>.log (its output) and index.json (outcomes; rewritten atomically after each
// trick, "complete": true once the run is over).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/atomic_file.h"
#include "reports/cli.h"

namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr int kExitUsage = 2;
constexpr int kExitInvalid = 3;  // harness/runner.h: a check failed

constexpr char kUsage[] = R"(usage: bazel run //benches:run_all -- [flags]

Runs every trick binary in its own process, one after another, each with a time
limit; records each one's outcome (ok, skipped, invalid, error, crashed, timeout,
failed) and keeps going.

  --out_dir=DIR      output folder (default: results/run-<UTC time> under the
                     workspace when run by `bazel run`, else under the current folder)
  --timeout=SECONDS  time limit per trick (default 300)
  --only=ID,ID       run only these tricks
  --skip=ID,ID       run all but these
  --list             print the trick ids and exit
  --help             this text
Forwarded to every trick binary: --min_time=S --repetitions=N --threads=N --seed=N
  --device=D --check_only --flush_l2 (CUDA builds) --benchmark_*=...

Exit status: 0 when every trick was measured or skipped, 1 when any was invalid,
failed, crashed or timed out (all results are still written), 2 bad command line.
)";

struct Options {
  std::vector<std::string> binaries;
  std::string out_dir;
  double timeout = 300;
  std::set<std::string> only, skip;
  bool list = false;
  std::vector<std::string> forward;
};

std::set<std::string> SplitIds(const std::string& s) {
  std::set<std::string> ids;
  std::stringstream ss(s);
  std::string id;
  while (std::getline(ss, id, ',')) {
    if (!id.empty()) ids.insert(id);
  }
  return ids;
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

bool Parse(int argc, char** argv, Options* o, std::string* error, bool* help) {
  static const std::vector<std::string> kForwarded = {"--min_time=", "--repetitions=", "--threads=",
                                                      "--seed=", "--device=", "--benchmark_",
                                                      "--flush_l2"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (!StartsWith(a, "--")) {
      o->binaries.push_back(a);
    } else if (a == "--help") {
      *help = true;
    } else if (a == "--list") {
      o->list = true;
    } else if (a == "--check_only") {
      o->forward.push_back(a);
    } else if (StartsWith(a, "--out_dir=")) {
      o->out_dir = a.substr(10);
      if (o->out_dir.empty()) {
        *error = "--out_dir is empty";
        return false;
      }
    } else if (StartsWith(a, "--timeout=")) {
      const std::string v = a.substr(10);
      char* end = nullptr;
      o->timeout = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(o->timeout > 0) || o->timeout > 86400) {
        *error = "bad value for --timeout: '" + v + "' (expected seconds, > 0)";
        return false;
      }
    } else if (StartsWith(a, "--only=")) {
      o->only = SplitIds(a.substr(7));
    } else if (StartsWith(a, "--skip=")) {
      o->skip = SplitIds(a.substr(7));
    } else {
      bool known = false;
      for (const auto& f : kForwarded) known |= StartsWith(a, f);
      if (!known) {
        *error = "unknown flag " + a + " (see --help)";
        return false;
      }
      o->forward.push_back(a);
    }
  }
  return true;
}

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

std::string LastLines(const std::string& path, int n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  std::string out;
  for (size_t i = lines.size() > static_cast<size_t>(n) ? lines.size() - n : 0; i < lines.size();
       ++i) {
    out += (out.empty() ? "" : " | ") + lines[i];
  }
  return out;
}

struct Outcome {
  std::string outcome, reason;
  int exit_code = -1;
  double seconds = 0;
  bool has_result = false;
};

// Runs one binary in its own process group, so that a trick that starts processes of
// its own (distributed ranks) loses them too when it is stopped.
Outcome RunOne(const std::string& binary, const std::string& result, const std::string& log,
               const std::vector<std::string>& forward, double timeout) {
  Outcome o;
  std::remove(result.c_str());
  std::vector<std::string> args = {binary, "--out=" + result};
  args.insert(args.end(), forward.begin(), forward.end());
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    o.outcome = "failed";
    o.reason = std::string("fork: ") + std::strerror(errno);
    return o;
  }
  if (pid == 0) {
    setpgid(0, 0);
    FILE* f = std::fopen(log.c_str(), "w");
    if (f) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    std::fprintf(stderr, "run_all: cannot execute %s: %s\n", binary.c_str(), std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > timeout && !timed_out) {
      timed_out = true;
      kill(-pid, SIGTERM);
      // Give it a moment to exit cleanly, then take the whole group down.
      for (int i = 0; i < 30 && waitpid(pid, &status, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);  // whatever the trick left running in its group
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  json j;
  if (fs::exists(result)) {
    std::string error;
    j = json::parse(trickbench::ReadFile(result, &error), nullptr, false);
    o.has_result = !j.is_discarded() && j.contains("trickbench");
  }
  const std::string status_field = o.has_result ? j["trickbench"].value("status", "") : "";
  const std::string reason_field = o.has_result ? j["trickbench"].value("reason", "") : "";
  if (timed_out) {
    o.outcome = "timeout";
    o.reason = "exceeded the " + std::to_string(static_cast<int>(timeout)) + " s limit";
    return o;
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    o.outcome = "crashed";
    o.reason = "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")" +
               (LastLines(log, 1).empty() ? "" : ": " + LastLines(log, 1));
    return o;
  }
  o.exit_code = WEXITSTATUS(status);
  if (o.exit_code == 0 && (status_field == "ok" || status_field == "skipped" ||
                           status_field == "checked")) {
    o.outcome = status_field == "checked" ? "ok" : status_field;
    o.reason = reason_field;
  } else if (o.exit_code == kExitInvalid && status_field == "invalid") {
    o.outcome = "invalid";
    o.reason = reason_field;
  } else if (o.has_result && status_field == "error") {
    o.outcome = "error";
    o.reason = reason_field;
  } else {
    o.outcome = "failed";
    o.reason = "exit " + std::to_string(o.exit_code) +
               (o.has_result ? "" : ", no result file") + ": " + LastLines(log, 2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  std::string error;
  bool help = false;
  if (!Parse(argc, argv, &opts, &error, &help)) {
    std::cerr << "run_all: " << error << "\n";
    return kExitUsage;
  }
  if (help) {
    std::cout << kUsage;
    return 0;
  }
  std::set<std::string> known;
  for (const auto& b : opts.binaries) known.insert(Id(b));
  for (const auto* ids : {&opts.only, &opts.skip}) {
    for (const auto& id : *ids) {
      if (!known.count(id)) {
        std::string all;
        for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
        std::cerr << "run_all: unknown trick '" << id << "' (known: " << all << ")\n";
        return kExitUsage;
      }
    }
  }
  std::vector<std::string> todo;
  for (const auto& b : opts.binaries) {
    const std::string id = Id(b);
    if ((opts.only.empty() || opts.only.count(id)) && !opts.skip.count(id)) todo.push_back(b);
  }
  if (opts.list) {
    for (const auto& b : todo) std::cout << Id(b) << "\n";
    return 0;
  }
  if (todo.empty()) {
    std::cerr << "run_all: no trick to run\n";
    return kExitUsage;
  }
  for (auto& b : todo) b = fs::absolute(b).string();
  if (opts.out_dir.empty()) {
    const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    opts.out_dir = std::string(ws && *ws ? ws : ".") + "/results/run-" + UtcStamp("%Y%m%d-%H%M%S");
  }
  std::error_code ec;
  fs::create_directories(opts.out_dir, ec);
  if (ec || !trickbench::CheckWritable(opts.out_dir + "/index.json", &error)) {
    std::cerr << "run_all: cannot write into --out_dir " << opts.out_dir << ": "
              << (ec ? ec.message() : error) << "\n";
    return kExitUsage;
  }
  opts.out_dir = fs::canonical(opts.out_dir).string();

  json index = {{"schema_version", 1},
                {"kind", "trickbench-run-index"},
                {"started", UtcStamp("%FT%TZ")},
                {"finished", nullptr},
                {"complete", false},
                {"out_dir", opts.out_dir},
                {"timeout_seconds", opts.timeout},
                {"forwarded_flags", opts.forward},
                {"tricks", json::array()}};
  std::cout << "run_all: " << todo.size() << " tricks, results in " << opts.out_dir << "\n";
  const auto start = std::chrono::steady_clock::now();
  int bad = 0;
  for (size_t i = 0; i < todo.size(); ++i) {
    const std::string id = Id(todo[i]);
    std::printf("[%zu/%zu] %-28s ", i + 1, todo.size(), id.c_str());
    std::fflush(stdout);
    const std::string result = opts.out_dir + "/" + id + ".json";
    const std::string log = opts.out_dir + "/" + id + ".log";
    const Outcome o = RunOne(todo[i], result, log, opts.forward, opts.timeout);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-8s %6.1fs  (elapsed %s)%s%s\n", o.outcome.c_str(), o.seconds,
                Clock(elapsed).c_str(), o.reason.empty() ? "" : "  ", o.reason.substr(0, 160).c_str());
    std::fflush(stdout);
    if (o.exit_code == kExitUsage && o.outcome == "failed") {
      std::cerr << "run_all: " << id << " rejected the forwarded flags; stopping (see " << log
                << ")\n";
      return kExitUsage;
    }
    if (o.outcome != "ok" && o.outcome != "skipped") ++bad;
    index["tricks"].push_back({{"id", id},
                               {"outcome", o.outcome},
                               {"reason", o.reason},
                               {"exit_code", o.exit_code},
                               {"seconds", o.seconds},
                               {"result", o.has_result ? json(id + ".json") : json(nullptr)},
                               {"log", id + ".log"}});
    if (!trickbench::WriteFileAtomically(opts.out_dir + "/index.json", index.dump(2) + "\n",
                                         &error)) {
      std::cerr << "run_all: " << error << "\n";
      return 1;
    }
  }
  index["finished"] = UtcStamp("%FT%TZ");
  index["complete"] = true;
  if (!trickbench::WriteFileAtomically(opts.out_dir + "/index.json", index.dump(2) + "\n", &error)) {
    std::cerr << "run_all: " << error << "\n";
    return 1;
  }
  std::cout << "run_all: " << (todo.size() - bad) << " of " << todo.size()
            << " tricks measured or skipped; index: " << opts.out_dir << "/index.json\n";
  // The report (reports/SCHEMA.md): statistics, verdicts, Markdown and HTML.
  std::vector<std::string> report_paths;
  if (!trickbench::reports::WriteRunReport(opts.out_dir, &report_paths, &error)) {
    std::cerr << "run_all: no report: " << error << "\n";
    return 1;
  }
  for (const auto& p : report_paths) std::cout << "run_all: report: " << p << "\n";
  return bad == 0 ? 0 : 1;
}
