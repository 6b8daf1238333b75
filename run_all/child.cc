#include "run_all/child.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>

namespace trickbench {
namespace run_all {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::string SignalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGKILL:
      return "SIGKILL";
    case SIGHUP:
      return "SIGHUP";
    case SIGABRT:
      return "SIGABRT";
    case SIGSEGV:
      return "SIGSEGV";
  }
  return "signal " + std::to_string(signal);
}

void SuperviseGroup(pid_t group, std::chrono::steady_clock::time_point start,
                    double timeout_seconds, const volatile sig_atomic_t* stop, double grace_seconds,
                    const std::function<bool(double)>& ended, ChildExit* e) {
  while (!ended(0.02)) {
    int forward = 0;
    if (stop && *stop) {
      e->stopped_by = *stop;
      forward = *stop;
    } else if (SecondsSince(start) > timeout_seconds) {
      e->timed_out = true;
      forward = SIGTERM;
    }
    if (forward) {
      // Give it a moment to exit cleanly, then take the whole group down.
      kill(-group, forward);
      if (!ended(grace_seconds)) {
        kill(-group, SIGKILL);
        ended(std::numeric_limits<double>::infinity());
      }
      break;
    }
  }
  kill(-group, SIGKILL);  // whatever the child left running in its group
  e->seconds = SecondsSince(start);
}

void DecodeStatus(int status, ChildExit* e) {
  if (WIFEXITED(status)) {
    e->exited = true;
    e->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e->term_signal = WTERMSIG(status);
  }
}

ChildExit RunInGroup(const std::vector<std::string>& argv, int output_fd, double timeout_seconds,
                     const volatile sig_atomic_t* stop, double grace_seconds) {
  ChildExit e;
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<std::string> args = argv;
  std::vector<char*> c_argv;
  for (auto& a : args) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    e.start_error = std::string("fork: ") + std::strerror(errno);
    return e;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // A handler run_all installed does not survive exec, but a signal it blocks would.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(output_fd, 1);
    dup2(output_fd, 2);
    execv(c_argv[0], c_argv.data());
    const char* why = std::strerror(errno);
    dprintf(2, "run_all: cannot execute %s: %s\n", c_argv[0], why);
    _exit(127);
  }
  // Both sides set the group, so that it exists before either signals it.
  setpgid(pid, pid);
  e.started = true;
  int status = 0;
  SuperviseGroup(
      pid, start, timeout_seconds, stop, grace_seconds,
      [&](double seconds) {
        const auto since = Clock::now();
        for (;;) {
          const pid_t r = waitpid(pid, &status, WNOHANG);
          if (r == pid || (r < 0 && errno != EINTR)) return true;
          if (SecondsSince(since) >= seconds) return false;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      },
      &e);
  DecodeStatus(status, &e);
  return e;
}

}  // namespace run_all
}  // namespace trickbench
