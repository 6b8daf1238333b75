#include "run_all/fork_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/write_all.h"

namespace trickbench {
namespace run_all {
namespace {

using Clock = std::chrono::steady_clock;

// The number after `prefix` in `line`; false when the line is not prefix + a number.
bool After(const std::string& line, const std::string& prefix, long* value) {
  if (line.compare(0, prefix.size(), prefix) != 0) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtol(line.c_str() + prefix.size(), &end, 10);
  return errno == 0 && end != line.c_str() + prefix.size() && *end == '\0';
}

// Waits up to 2 s for `pid` to end, polling: the waitpid result (pid once reaped, 0 if it
// still runs, -1 on error), its status in *status. Not a blocking wait: a server that
// ignores the end of its input must not hang run_all.
pid_t ReapWithin2s(pid_t pid, int* status) {
  pid_t reaped = 0;
  for (int i = 0; i < 100 && reaped == 0; ++i) {
    reaped = waitpid(pid, status, WNOHANG);
    if (reaped == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return reaped;
}

}  // namespace

ForkServer::ForkServer(const std::string& binary) {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0) {
    broken_ = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  if (pipe2(from, O_CLOEXEC) != 0) {
    broken_ = std::string("pipe: ") + std::strerror(errno);
    close(to[0]);
    close(to[1]);
    return;
  }
  std::string program = binary, serve = "--serve";
  char* argv[] = {program.data(), serve.data(), nullptr};
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    // An orphaned server would wait on its input for ever; it goes when run_all does.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(to[0], 0);
    dup2(from[1], 1);
    execv(argv[0], argv);
    dprintf(2, "run_all: cannot execute %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  if (pid < 0) {
    broken_ = std::string("fork: ") + std::strerror(errno);
    close(to[1]);
    close(from[0]);
    return;
  }
  setpgid(pid, pid);
  pid_ = pid;
  to_ = to[1];
  from_ = from[0];
}

ForkServer::~ForkServer() {
  if (to_ >= 0) close(to_);  // end of input: the server exits
  if (from_ >= 0) close(from_);
  if (pid_ <= 0) return;
  int status = 0;
  if (ReapWithin2s(pid_, &status) != 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
}

bool ForkServer::ReadLine(double seconds, std::string* line) {
  const auto start = Clock::now();
  for (;;) {
    if (const size_t nl = pending_.find('\n'); nl != std::string::npos) {
      *line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return true;
    }
    if (!broken_.empty()) return false;
    int wait_ms = -1;
    if (std::isfinite(seconds)) {
      const double left = seconds - std::chrono::duration<double>(Clock::now() - start).count();
      if (left <= 0) return false;
      wait_ms = static_cast<int>(std::ceil(left * 1000));
    }
    pollfd p = {from_, POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return false;
    if (ready < 0) {
      broken_ = std::string("cannot wait for the fork server: ") + std::strerror(errno);
      return false;
    }
    char buf[512];
    const ssize_t n = read(from_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      broken_ = std::string("cannot read from the fork server: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) {
      broken_ = Ended();
      return false;
    }
    pending_.append(buf, static_cast<size_t>(n));
  }
}

std::string ForkServer::Ended() {
  // Its end of the pipe closes as it exits, a moment before it can be reaped.
  int status = 0;
  const pid_t reaped = pid_ > 0 ? ReapWithin2s(pid_, &status) : 0;
  if (reaped != pid_) return "the fork server exited";
  pid_ = -1;  // reaped: the destructor must not wait for it, nor signal the pid
  if (WIFSIGNALED(status)) return "the fork server was killed by " + SignalName(WTERMSIG(status));
  return "the fork server exited with code " + std::to_string(WEXITSTATUS(status));
}

ChildExit ForkServer::Run(const std::vector<std::string>& args, const std::string& log,
                          double timeout_seconds, const volatile sig_atomic_t* stop,
                          double grace_seconds) {
  ChildExit e;
  const auto start = Clock::now();
  const nlohmann::json request = {{"args", args}, {"log", log}};
  if (broken_.empty() && !WriteAll(to_, request.dump() + "\n")) {
    broken_ = errno == EPIPE
                  ? Ended()
                  : std::string("cannot write to the fork server: ") + std::strerror(errno);
  }
  std::string line;
  if (!broken_.empty() || !ReadLine(timeout_seconds, &line)) {
    if (broken_.empty()) {
      // Killed, so that it cannot still start this request beside the exec'd process
      // that takes its place.
      if (pid_ > 0) kill(pid_, SIGKILL);
      char within[64];
      std::snprintf(within, sizeof within, "%g", timeout_seconds);
      broken_ = std::string("the fork server did not answer within ") + within + " s";
    }
    e.start_error = broken_;
    return e;
  }
  long pid = 0;
  if (!After(line, "started ", &pid) || pid <= 0) {
    e.start_error = line.compare(0, 8, "refused ") == 0
                        ? "the fork server refused: " + line.substr(8)
                        : "the fork server said: " + line;
    return e;
  }
  e.started = true;
  std::string end;
  SuperviseGroup(
      static_cast<pid_t>(pid), start, timeout_seconds, stop, grace_seconds,
      [&](double seconds) { return ReadLine(seconds, &end) || !broken_.empty(); }, &e);
  long value = 0;
  if (After(end, "exited ", &value)) {
    e.exited = true;
    e.exit_code = static_cast<int>(value);
  } else if (After(end, "signaled ", &value)) {
    e.term_signal = static_cast<int>(value);
  } else {
    // The server went while its child ran: how the child ended is not known, and the
    // group was killed above.
    e.term_signal = SIGKILL;
  }
  return e;
}

}  // namespace run_all
}  // namespace trickbench
