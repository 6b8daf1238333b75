// Child supervision: run one program in its own process group, with a time limit and
// a stop request, and take down everything it started when it ends.
//
//   volatile sig_atomic_t stop = 0;               // set by a signal handler
//   const ChildExit e = RunInGroup({"/bin/sleep", "60"}, log_fd, /*timeout=*/5, &stop);
//   if (e.timed_out) ...                          // SIGTERM, a grace period, SIGKILL
//
// Why a process group of its own: a trick may start processes (distributed ranks, the
// test tricks' sleepers); signalling the group reaches them all, and a Ctrl-C meant
// for run_all does not reach the trick behind its back, so run_all decides what the
// trick is told and records it.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace trickbench {
namespace run_all {

struct ChildExit {
  bool started = false;  // false: fork failed, see start_error
  std::string start_error;
  bool exited = false;  // exited by itself; exit_code is valid
  int exit_code = -1;
  int term_signal = 0;     // the signal that ended it when !exited
  bool timed_out = false;  // stopped at the time limit
  int stopped_by = 0;      // the stop request's signal, forwarded to it; 0 if none
  double seconds = 0;      // wall time from start to reaping
};

// Runs argv (argv[0] is the program's path) with stdout and stderr on `output_fd`, in a
// new process group, until it exits, `timeout_seconds` pass, or *stop becomes non-zero.
// At the time limit the group gets SIGTERM, on a stop request the signal in *stop; if
// the child has not exited after `grace_seconds` the group gets SIGKILL. Whatever is
// left in the group gets SIGKILL at the end in every case. A program that cannot be
// executed exits 127 with the reason on `output_fd`.
ChildExit RunInGroup(const std::vector<std::string>& argv, int output_fd, double timeout_seconds,
                     const volatile sig_atomic_t* stop, double grace_seconds = 3);

// The supervision both ways of starting a child share (RunInGroup here, a fork server's
// child in fork_client.h): `ended(seconds)` waits up to that long for the child's end and
// says whether it came. At the time limit, or on a stop request, the group gets its signal,
// then SIGKILL after `grace_seconds`; at the end whatever is left in the group gets
// SIGKILL. Sets e->timed_out, e->stopped_by and e->seconds (from `start`).
void SuperviseGroup(pid_t group, std::chrono::steady_clock::time_point start,
                    double timeout_seconds, const volatile sig_atomic_t* stop, double grace_seconds,
                    const std::function<bool(double)>& ended, ChildExit* e);

// e->exited and e->exit_code, or e->term_signal, from a wait status.
void DecodeStatus(int status, ChildExit* e);

// "SIGTERM", "SIGINT", ...; "signal N" for one without a name here.
std::string SignalName(int signal);

}  // namespace run_all
}  // namespace trickbench
