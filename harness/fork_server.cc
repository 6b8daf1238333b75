#include "harness/fork_server.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/write_all.h"
#include "harness/end_process.h"

namespace trickbench {
namespace {

// A child's exit code when the server could not tell the caller it started: it ran
// nothing (EX_SOFTWARE-like; no one reads it but the server's waitpid).
constexpr int kChildNotTold = 70;

// One reply line; false when the caller has gone.
bool Reply(int fd, const std::string& line) { return WriteAll(fd, line + "\n"); }

struct Request {
  std::vector<std::string> args;
  std::string log;
};

// "" when `line` is a request, else what is wrong with it.
std::string ParseRequest(const std::string& line, Request* r) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return "not a JSON object";
  if (!j.contains("args") || !j["args"].is_array()) return "no \"args\" array";
  for (const auto& a : j["args"]) {
    if (!a.is_string()) return "\"args\" holds a non-string";
    r->args.push_back(a.get<std::string>());
  }
  if (!j.contains("log") || !j["log"].is_string()) return "no \"log\" string";
  r->log = j["log"].get<std::string>();
  return "";
}

// The child's side: the request's process, as an exec'd one would start it from main(),
// once the server says the caller knows its pid (a byte on `go_fd`). Without the byte (the
// server was killed, or could not tell the caller) the caller runs the request some
// other way, so this child leaves without running it: no one would supervise it.
[[noreturn]] void RunChild(int in_fd, int out_fd, int log_fd, int go_fd, const char* program,
                           const Request& r, const MainFunction& main_fn) {
  setpgid(0, 0);
  char go = 0;
  ssize_t n;
  while ((n = read(go_fd, &go, 1)) < 0 && errno == EINTR) {
  }
  if (n != 1) _exit(kChildNotTold);
  close(go_fd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null_fd = open("/dev/null", O_RDONLY);
  // The request pipe and the reply pipe are the server's: a child holding the reply
  // pipe would keep the caller from seeing the server's end.
  if (null_fd >= 0) dup2(null_fd, 0);
  dup2(log_fd, 1);
  dup2(log_fd, 2);
  for (int fd : {in_fd, out_fd, log_fd, null_fd}) {
    if (fd > 2) close(fd);
  }
  std::vector<std::string> storage = {program};
  storage.insert(storage.end(), r.args.begin(), r.args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  // As an exec'd process ends (main.cc): without the static destructors it inherited.
  EndProcess(main_fn(static_cast<int>(storage.size()), argv.data()));
}

}  // namespace

int ThreadCount() {
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n;
}

int ServeForks(int in_fd, int out_fd, const char* program, const MainFunction& main_fn) {
  // Replies are written with write(2), never through stdio: a child inherits the stdio
  // buffers, and would write a buffered reply a second time when it exits. WriteAll
  // turns a caller that has gone into an error, not a SIGPIPE.
  std::string pending;
  char buf[4096];
  for (;;) {
    const size_t newline = pending.find('\n');
    if (newline == std::string::npos) {
      const ssize_t n = read(in_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;  // end of input: the caller is done
      pending.append(buf, static_cast<size_t>(n));
      continue;
    }
    const std::string line = pending.substr(0, newline);
    pending.erase(0, newline + 1);
    Request r;
    if (std::string bad = ParseRequest(line, &r); !bad.empty()) {
      if (!Reply(out_fd, "refused bad request: " + bad)) return 1;
      continue;
    }
    if (const int threads = ThreadCount(); threads != 1) {
      if (!Reply(out_fd, "refused the server runs " + std::to_string(threads) +
                             " threads, and a fork copies only one")) {
        return 1;
      }
      continue;
    }
    const int log_fd = open(r.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      if (!Reply(out_fd, "refused cannot write " + r.log + ": " + std::strerror(errno))) return 1;
      continue;
    }
    int go[2];
    if (pipe2(go, O_CLOEXEC) != 0) {
      close(log_fd);
      if (!Reply(out_fd, std::string("refused pipe: ") + std::strerror(errno))) return 1;
      continue;
    }
    const pid_t pid = fork();
    if (pid == 0) {
      close(go[1]);  // so that the server's end, when it dies, is the last one
      RunChild(in_fd, out_fd, log_fd, go[0], program, r, main_fn);
    }
    close(log_fd);
    close(go[0]);
    if (pid < 0) {
      close(go[1]);
      if (!Reply(out_fd, std::string("refused fork: ") + std::strerror(errno))) return 1;
      continue;
    }
    // Both sides set the group, so that it exists before the caller signals it.
    setpgid(pid, pid);
    const bool told = Reply(out_fd, "started " + std::to_string(pid));
    if (told) WriteAll(go[1], "g");
    close(go[1]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!told) return 1;
    const std::string end = WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                              : "signaled " + std::to_string(WTERMSIG(status));
    if (!Reply(out_fd, end)) return 1;
  }
}

}  // namespace trickbench
