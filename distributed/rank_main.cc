#include "distributed/rank_main.h"

#include <ATen/Parallel.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "common/glibc_allocator.h"
#include "distributed/channel.h"
#include "distributed/launched_group.h"
#include "distributed/launcher_env.h"
#include "distributed/process_group.h"

namespace trickbench::distributed {
namespace {

// How long an idle rank waits for the next request: the benchmark may be timing other
// variants meanwhile. A dead peer is noticed by Gloo at once (closed connection).
constexpr std::chrono::hours kIdleWait{24};

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

[[noreturn]] void ExitRank(int code) {
  std::fflush(nullptr);
  std::cerr.flush();
  // _Exit: static destructors must not run, some statics were never constructed.
  std::_Exit(code);
}

}  // namespace

int ServeRequests(Group& group, int control_fd, const RankHandler& handler) {
  const bool root = group.getRank() == 0;
  while (true) {
    c10::IValue command;
    if (root) {
      Frame frame;
      const ReceiveStatus status = ReceiveFrame(control_fd, &frame);
      // End of stream: the benchmark went away; the group ends with it.
      if (status != ReceiveStatus::kOk || frame.kind == FrameKind::kQuit) {
        command = c10::ivalue::Tuple::create({c10::IValue(std::string("quit")), c10::IValue()});
      } else {
        command =
            c10::ivalue::Tuple::create({c10::IValue(std::string("call")), Unpickle(frame.payload)});
      }
    }
    command = BroadcastValue(group, command, 0, kIdleWait);
    const auto& elements = command.toTupleRef().elements();
    if (elements.at(0).toStringRef() == "quit") return 0;
    c10::IValue reply;
    try {
      reply = handler(elements.at(1));
    } catch (const std::exception& e) {
      const std::string message = "rank " + std::to_string(group.getRank()) + ": " + e.what();
      std::cerr << "trickbench rank: " << message << "\n";
      if (root)
        SendFrame(control_fd, FrameKind::kError, std::vector<char>(message.begin(), message.end()));
      return 1;
    }
    if (root && !SendFrame(control_fd, FrameKind::kReply, Pickle(reply))) return 1;
  }
}

bool RunRankIfRequested(const char* entry, RankHandlerFactory factory) {
  const char* wanted = std::getenv("TRICKBENCH_RANK_ENTRY");
  if (wanted != nullptr && std::strcmp(wanted, entry) != 0) return false;
  // A rank does the benchmark's work in its own process: in the benchmark's allocator
  // regime, whatever it ran before (common/glibc_allocator.h).
  ApplyAllocatorRegime(kDefaultAllocatorRegime);
  const auto getenv = [](const char* n) -> const char* { return std::getenv(n); };

  // Under a launcher every rank is its process: rank 0 joins the group and goes on to
  // main (the benchmark), the others serve it (distributed/launched_group.h).
  std::string error;
  const auto launch = DetectLauncher(getenv, &error);
  if (!error.empty()) {
    std::cerr << "trickbench (" << entry << "): " << error << "\n";
    ExitRank(2);
  }
  if (launch) {
    RegisterRankMain(entry, factory);
    if (launch->rank.rank != 0) ServeLaunchedRank(*launch, entry, factory);
    LaunchedGroup::StartRankZero(*launch);
    return false;
  }

  if (std::getenv("RANK") == nullptr) return false;
  const auto env = ParseRankEnv(getenv, &error);
  if (!env) {
    std::cerr << "trickbench rank (" << entry << "): " << error << "\n";
    ExitRank(2);
  }
  const bool local = std::getenv("TRICKBENCH_RANK_LOCAL") != nullptr;
  const int control_fd = EnvInt("TRICKBENCH_RANK_CONTROL_FD", -1);
  if (env->rank == 0 && control_fd < 0) {
    std::cerr << "trickbench rank (" << entry << "): rank 0 is started by the benchmark "
              << "itself; run the binary without RANK on the MASTER_ADDR machine, or every "
              << "rank under torchrun, srun or mpirun (no launcher's variables found; "
              << "TRICKBENCH_LAUNCHER=env takes RANK as a launcher's: distributed/README.md)\n";
    ExitRank(2);
  }
  at::set_num_threads(std::max(1, EnvInt("TRICKBENCH_RANK_THREADS", 1)));
  const auto join_timeout =
      local ? std::chrono::milliseconds(60000)
            : std::chrono::milliseconds(1000 * EnvInt("TRICKBENCH_RANK_WAIT_S", 300));
  int groups = 0;
  while (true) {
    // Join. A remote rank retries until the wait runs out: right after a group ends,
    // the previous rank 0 may still hold the port, and the next one not hold it yet.
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    const auto deadline = std::chrono::steady_clock::now() + join_timeout;
    while (!group) {
      try {
        group = JoinGlooGroup(*env, join_timeout);
      } catch (const std::exception& e) {
        if (local || std::chrono::steady_clock::now() > deadline) {
          std::cerr << "trickbench rank " << env->rank << " (" << entry
                    << "): " << (groups > 0 ? "no further group" : "cannot join") << ": "
                    << e.what() << "\n";
          ExitRank(groups > 0 ? 0 : 1);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
    }
    int code = 1;
    try {
      const RankHandler handler = factory(*group, *env);
      code = ServeRequests(*group, env->rank == 0 ? control_fd : -1, handler);
    } catch (const std::exception& e) {
      std::cerr << "trickbench rank " << env->rank << " (" << entry << "): " << e.what() << "\n";
    }
    ++groups;
    if (local) ExitRank(code);
  }
}

}  // namespace trickbench::distributed
