// A trick binary's fork server (harness/fork_server.h) seen from run_all: one server per
// binary for the whole run, each process a fork of it instead of an exec.
//
//   ForkServer server("/bin/dir/no_grad_inference");     // `... --serve`, started now
//   ChildExit e = server.Run({"--out=/r/x.p2.json", "--process=2"}, "/r/x.p2.log",
//                            /*timeout=*/300, latch.flag());
//   if (!e.started) ...   // e.start_error: the server refused or has gone; exec instead
//
// Why: each exec'd trick process spends 0.26 s loading LibTorch before main() here, and a
// default run starts about 400 of them (harness/fork_server.h). The child is supervised
// as RunInGroup's is (child.h): its own process group, the time limit, the stop request.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "run_all/child.h"

namespace trickbench {
namespace run_all {

class ForkServer {
 public:
  // Starts `binary --serve` in a process group of its own (a Ctrl-C meant for run_all
  // does not reach it), with a pipe each way. It dies with run_all (PR_SET_PDEATHSIG).
  explicit ForkServer(const std::string& binary);
  // Closes the server's input, so it exits, and reaps it.
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  // As RunInGroup (child.h) for `binary args...` with stdout and stderr into `log`
  // (truncated), through the server. When the server refuses or has gone, nothing ran:
  // e.started is false and e.start_error says why, and every later Run says the same.
  ChildExit Run(const std::vector<std::string>& args, const std::string& log,
                double timeout_seconds, const volatile sig_atomic_t* stop,
                double grace_seconds = 3);

  // Why the server cannot be used ("" while it can).
  const std::string& broken() const { return broken_; }

 private:
  // The next reply line, waiting up to `seconds`; false on a timeout, or with broken_
  // set when the server has gone.
  bool ReadLine(double seconds, std::string* line);
  // How the server ended ("the fork server was killed by SIGKILL"), once its pipe says
  // it has gone; reaps it.
  std::string Ended();

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string pending_;  // read but not yet a whole line
  std::string broken_;
};

}  // namespace run_all
}  // namespace trickbench
