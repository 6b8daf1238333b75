#include "distributed/rank_group.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "distributed/channel.h"
#include "distributed/launched_group.h"
#include "distributed/launcher_env.h"
#include "distributed/process_group.h"
#include "distributed/rank_env.h"

extern char** environ;

namespace trickbench::distributed {
namespace {

// Variables this file sets for the ranks; any inherited value is replaced.
const char* const kOwnVariables[] = {"RANK",
                                     "WORLD_SIZE",
                                     "MASTER_ADDR",
                                     "MASTER_PORT",
                                     "LOCAL_RANK",
                                     "LOCAL_WORLD_SIZE",
                                     "TRICKBENCH_RANK_ENTRY",
                                     "TRICKBENCH_RANK_THREADS",
                                     "TRICKBENCH_RANK_CONTROL_FD",
                                     "TRICKBENCH_RANK_LOCAL"};

bool IsOwnVariable(const char* entry) {
  for (const char* name : kOwnVariables) {
    const size_t n = std::strlen(name);
    if (std::strncmp(entry, name, n) == 0 && entry[n] == '=') return true;
  }
  return false;
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "stopped (status " + std::to_string(status) + ")";
}

}  // namespace

const LaunchEnv* Launched() {
  const LaunchedGroup* launched = LaunchedGroup::RankZero();
  return launched ? &launched->env() : nullptr;
}

RankGroup::RankGroup(const RankGroupOptions& options) : options_(options) {
  if (options_.entry.empty()) throw std::invalid_argument("RankGroup: no rank entry named");
  if (options_.threads_per_rank < 1) throw std::invalid_argument("RankGroup: threads_per_rank < 1");
  if (options_.reply_timeout.count() <= 0)
    throw std::invalid_argument("RankGroup: reply_timeout <= 0");
  if (LaunchedGroup* launched = LaunchedGroup::RankZero()) {
    const LaunchEnv& env = launched->env();
    options_.world_size = env.rank.world_size;
    options_.local_ranks = env.local_world_size;
    options_.master_addr = env.rank.master_addr;
    options_.master_port = env.rank.master_port;
    launched_id_ = launched->Open(options_.entry, options_.threads_per_rank);
    launched_ = launched;
    alive_ = true;
    return;
  }
  if (options_.world_size < 1) throw std::invalid_argument("RankGroup: world_size must be >= 1");
  if (options_.local_ranks < 0) options_.local_ranks = options_.world_size;
  if (options_.local_ranks < 1 || options_.local_ranks > options_.world_size) {
    throw std::invalid_argument(
        "RankGroup: local_ranks must be in 1..world_size (rank 0 is local)");
  }
  if (options_.master_port == 0) options_.master_port = FreeLoopbackPort();
  Start();
}

RankGroup::~RankGroup() { Stop(); }

void RankGroup::Start() {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw RankFailure(std::string("socketpair: ") + std::strerror(errno));
  }
  control_fd_ = pair[0];
  const int rank0_fd = pair[1];
  const pid_t parent = getpid();

  // Everything the child needs is built before fork: between fork and exec only
  // async-signal-safe calls are allowed in a multithreaded process.
  std::vector<std::string> inherited;
  for (char** e = environ; e && *e; ++e) {
    if (!IsOwnVariable(*e)) inherited.emplace_back(*e);
  }
  std::vector<std::vector<std::string>> envs(options_.local_ranks);
  for (int r = 0; r < options_.local_ranks; ++r) {
    auto& env = envs[r];
    env = inherited;
    env.push_back("RANK=" + std::to_string(r));
    env.push_back("WORLD_SIZE=" + std::to_string(options_.world_size));
    env.push_back("MASTER_ADDR=" + options_.master_addr);
    env.push_back("MASTER_PORT=" + std::to_string(options_.master_port));
    env.push_back("LOCAL_RANK=" + std::to_string(r));
    env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(options_.local_ranks));
    env.push_back("TRICKBENCH_RANK_ENTRY=" + options_.entry);
    env.push_back("TRICKBENCH_RANK_THREADS=" + std::to_string(options_.threads_per_rank));
    env.push_back("TRICKBENCH_RANK_LOCAL=1");
    if (r == 0) env.push_back("TRICKBENCH_RANK_CONTROL_FD=" + std::to_string(rank0_fd));
  }
  std::string exe = options_.executable;
  char* argv[] = {exe.data(), nullptr};

  for (int r = 0; r < options_.local_ranks; ++r) {
    std::vector<char*> envp;
    for (auto& s : envs[r]) envp.push_back(s.data());
    envp.push_back(nullptr);
    const pid_t group = process_group_;
    const pid_t pid = fork();
    if (pid < 0) {
      const std::string why = std::strerror(errno);
      close(rank0_fd);
      KillAll();
      throw RankFailure("fork of rank " + std::to_string(r) + ": " + why);
    }
    if (pid == 0) {
      // Child: own process group (killed as one), dies with its parent, stdout -> stderr.
      setpgid(0, group);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(125);  // the parent died before prctl
      dup2(STDERR_FILENO, STDOUT_FILENO);
      if (r == 0) fcntl(rank0_fd, F_SETFD, 0);  // keep rank 0's end across exec
      execve(argv[0], argv, envp.data());
      _exit(127);
    }
    setpgid(pid, group);  // also here, so the group exists before anyone signals it
    if (process_group_ == 0) process_group_ = pid;
    pids_.push_back(pid);
    reaped_.push_back(false);
  }
  close(rank0_fd);
  alive_ = true;
}

c10::IValue RankGroup::Call(const c10::IValue& request) {
  if (!alive_) throw RankFailure("the rank group has stopped");
  if (launched_ != nullptr) {
    try {
      return launched_->Call(launched_id_, request);
    } catch (const RankFailure& e) {
      alive_ = false;
      throw RankFailure("ranks of '" + options_.entry + "' (" +
                        LauncherName(launched_->env().launcher) + ") stopped: " + e.what());
    }
  }
  if (!SendFrame(control_fd_, FrameKind::kRequest, Pickle(request))) {
    const std::string exited = ReapExited();
    Fail("cannot send the request to rank 0" + (exited.empty() ? "" : ": " + exited));
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.reply_timeout;
  while (true) {
    pollfd p{control_fd_, POLLIN, 0};
    const int ready = poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) Fail(std::string("poll: ") + std::strerror(errno));
    if (ready > 0) {
      Frame frame;
      const ReceiveStatus status = ReceiveFrame(control_fd_, &frame);
      if (status != ReceiveStatus::kOk) {
        const std::string exited = ReapExited();
        Fail("rank 0 closed the control channel" + (exited.empty() ? "" : ": " + exited));
      }
      if (frame.kind == FrameKind::kError) {
        Fail("rank 0 failed: " + std::string(frame.payload.begin(), frame.payload.end()));
      }
      if (frame.kind != FrameKind::kReply) Fail("rank 0 sent an unexpected frame");
      return Unpickle(frame.payload);
    }
    // A rank that died leaves the others blocked in a collective until Gloo's timeout:
    // look at the processes themselves instead of waiting for that.
    if (const std::string exited = ReapExited(); !exited.empty()) Fail(exited);
    if (std::chrono::steady_clock::now() > deadline) {
      Fail("no reply from rank 0 within " + std::to_string(options_.reply_timeout.count()) +
           " ms: a rank hangs");
    }
  }
}

std::string RankGroup::ReapExited() {
  for (size_t r = 0; r < pids_.size(); ++r) {
    if (reaped_[r]) continue;
    int status = 0;
    const pid_t got = waitpid(pids_[r], &status, WNOHANG);
    if (got == pids_[r]) {
      reaped_[r] = true;
      return "rank " + std::to_string(r) + " (pid " + std::to_string(pids_[r]) + ") " +
             DescribeStatus(status);
    }
  }
  return "";
}

void RankGroup::Fail(const std::string& why) {
  KillAll();
  throw RankFailure("ranks of '" + options_.entry + "' stopped: " + why);
}

void RankGroup::KillAll() {
  alive_ = false;
  bool any_running = false;
  for (bool r : reaped_) any_running |= !r;
  // Only while one of ours is unreaped: the group id cannot have been reused yet.
  if (any_running && process_group_ > 0) kill(-process_group_, SIGKILL);
  for (size_t r = 0; r < pids_.size(); ++r) {
    if (reaped_[r]) continue;
    kill(pids_[r], SIGKILL);  // in case it had not joined the process group yet
    while (waitpid(pids_[r], nullptr, 0) < 0 && errno == EINTR) {
    }
    reaped_[r] = true;
  }
  if (control_fd_ >= 0) close(control_fd_);
  control_fd_ = -1;
}

void RankGroup::Stop(std::chrono::milliseconds grace) {
  if (launched_ != nullptr) {
    if (launched_id_ >= 0) launched_->Close(launched_id_);
    launched_id_ = -1;
    alive_ = false;
    return;
  }
  if (alive_ && control_fd_ >= 0) {
    SendFrame(control_fd_, FrameKind::kQuit, {});
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < deadline) {
      ReapExited();
      bool all = true;
      for (bool r : reaped_) all &= r;
      if (all) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  KillAll();
}

}  // namespace trickbench::distributed
