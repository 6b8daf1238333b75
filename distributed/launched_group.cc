#include "distributed/launched_group.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/rank_group.h"

namespace trickbench::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A store value: LibTorch 1.13's c10d::Store::set takes bytes only (2.x also a string).
std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

// A handler's collectives and a request's broadcast: a peer that hangs this long is a
// failure (RankGroupOptions::reply_timeout's default, for the same reason).
constexpr milliseconds kCollectiveTimeout{60000};
// After a failure, how long a rank waits for the others to say they are alive or failed.
constexpr milliseconds kAnswerWait{3000};
constexpr milliseconds kGoodbyeWait{10000};
// The watcher's store wait: never timed out in practice, since a timed-out wait could
// leave the client mid-protocol; a store that goes away ends it at once.
constexpr milliseconds kForever = std::chrono::hours(24 * 365);

// How long a serving rank waits for the group to form and for rank 0's next request.
milliseconds WaitLimit() {
  const char* v = std::getenv("TRICKBENCH_RANK_WAIT_S");
  const int seconds = v && *v ? std::atoi(v) : 300;
  return milliseconds(1000LL * std::max(1, seconds));
}

std::map<std::string, RankHandlerFactory>& Factories() {
  static auto* factories = new std::map<std::string, RankHandlerFactory>;  // never destroyed
  return *factories;
}

// One line: c10::Error's what() may carry a C++ backtrace.
std::string Describe(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  std::string text = c10_error ? c10_error->what_without_backtrace() : e.what();
  const auto eol = text.find('\n');
  return eol == std::string::npos ? text : text.substr(0, eol);
}

[[noreturn]] void ExitProcess(int code) {
  std::fflush(nullptr);
  std::cerr.flush();
  std::_Exit(code);  // no static destructors: the group's threads are still running
}

c10::IValue Message(const std::string& op, int64_t id, c10::IValue payload = c10::IValue()) {
  return c10::ivalue::Tuple::create({c10::IValue(op), c10::IValue(id), std::move(payload)});
}

void UseThreads(int threads) {
  if (threads >= 1 && at::get_num_threads() != threads) at::set_num_threads(threads);
}

}  // namespace

struct LaunchedGroup::State {
  LaunchEnv env;
  std::string entry;
  c10::intrusive_ptr<c10d::Store> store;  // this attempt's keys
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  std::atomic<bool> exiting{false};  // goodbye under way: a vanishing store is expected
  std::atomic<bool> failed{false};   // this rank reported its own failure
  std::mutex mutex;                  // guards broken (the watcher sets it on rank 0)
  std::string broken;
  struct Instance {
    RankHandler handler;
    int threads = 1;
  };
  std::map<int64_t, Instance> instances;
  int64_t next_id = 0;

  int rank() const { return env.rank.rank; }
  std::string Key(const char* what, int rank) const { return what + std::to_string(rank); }
  std::string Where() const {
    return env.rank.master_addr + ":" + std::to_string(env.rank.master_port);
  }
  std::string Who() const {
    return "trickbench rank " + std::to_string(rank()) + " (" + entry + ", " +
           LauncherName(env.launcher) + ")";
  }

  // The store (hosted by rank 0 unless the launcher's agent hosts it), the Gloo group
  // on its own prefix, and the watcher on a connection of its own (a blocked wait holds
  // its client). Throws when the group does not form within `timeout`.
  void Join(milliseconds timeout) {
    const bool host = rank() == 0 && !env.agent_store;
    store = c10::make_intrusive<c10d::PrefixStore>(env.store_prefix,
                                                   ConnectStore(env.rank, host, timeout));
    group = MakeGlooGroup(c10::make_intrusive<c10d::PrefixStore>("group", store), env.rank,
                          kCollectiveTimeout);
    store->set(Key("joined/", rank()), Bytes("1"));  // for tests and post-mortems
    c10::intrusive_ptr<c10d::Store> watch = c10::make_intrusive<c10d::PrefixStore>(
        env.store_prefix, ConnectStore(env.rank, false, timeout));
    std::thread([this, watch] { Watch(watch); }).detach();
  }

  std::string Broken() {
    std::lock_guard<std::mutex> lock(mutex);
    return broken;
  }
  void SetBroken(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex);
    if (broken.empty()) broken = why;
  }

  // What the ranks that failed wrote, "; "-joined.
  std::string Reports(c10d::Store& s) {
    std::string out;
    for (int q = 0; q < env.rank.world_size; ++q) {
      if (q == rank() || !s.check({Key("failed/", q)})) continue;
      const auto bytes = s.get(Key("failed/", q));
      out += (out.empty() ? "" : "; ") + std::string(bytes.begin(), bytes.end());
    }
    return out;
  }

  // Blocks until some rank reports a failure, then answers that this rank is alive and
  // ends it: a serving rank exits, rank 0 fails its group (its calls then throw).
  void Watch(const c10::intrusive_ptr<c10d::Store>& watch) {
    std::string why;
    try {
      watch->wait({"failures"}, kForever);
      if (exiting || failed) return;
      watch->set(Key("alive/", rank()), Bytes("1"));
      why = Reports(*watch);
    } catch (const std::exception& e) {
      if (exiting || failed) return;
      why = rank() != 0 && !env.agent_store
                ? "rank 0 is gone: its store at " + Where() + " went away (" + Describe(e) + ")"
                : "the launcher's store at " + Where() + " went away (" + Describe(e) + ")";
    }
    if (rank() == 0) {
      SetBroken(why);
      return;
    }
    std::cerr << Who() << ": stopping: " << why << "\n";
    ExitProcess(1);
  }

  // Writes this rank's failure, wakes every watcher, waits up to kAnswerWait for each
  // other rank's answer, and returns `mine` with what the others said or that they
  // are gone.
  std::string ReportFailure(const std::string& mine) {
    failed = true;
    std::string out = mine;
    try {
      store->set(Key("failed/", rank()), Bytes(mine));
      store->add("failures", 1);
      std::set<int> pending;
      for (int q = 0; q < env.rank.world_size; ++q) {
        if (q != rank()) pending.insert(q);
      }
      const auto deadline = Clock::now() + kAnswerWait;
      while (!pending.empty() && Clock::now() < deadline) {
        for (auto it = pending.begin(); it != pending.end();) {
          if (store->check({Key("failed/", *it)})) {
            const auto bytes = store->get(Key("failed/", *it));
            out += "; " + std::string(bytes.begin(), bytes.end());
            it = pending.erase(it);
          } else if (store->check({Key("alive/", *it)})) {
            it = pending.erase(it);
          } else {
            ++it;
          }
        }
        std::this_thread::sleep_for(milliseconds(50));
      }
      for (int q : pending) {
        out += "; rank " + std::to_string(q) + " is gone (no answer within " +
               std::to_string(kAnswerWait.count() / 1000) + " s: it exited or was killed)";
      }
    } catch (const std::exception& e) {
      out += rank() != 0 && !env.agent_store
                 ? "; rank 0 is gone (its store at " + Where() + " is unreachable)"
                 : "; the store at " + Where() + " is unreachable (" + Describe(e) + ")";
    }
    return out;
  }
};

LaunchedGroup::LaunchedGroup(std::unique_ptr<State> state) : state_(std::move(state)) {}

const LaunchEnv& LaunchedGroup::env() const { return state_->env; }

namespace {
LaunchedGroup*& RankZeroGroup() {
  static LaunchedGroup* group = nullptr;
  return group;
}

// At rank 0's exit: tells the serving ranks to exit 0, and waits until each has heard
// it (an all-reduce), so none sees a store rank 0 hosted vanish first.
void Goodbye() {
  LaunchedGroup* launched = RankZeroGroup();
  if (launched == nullptr) return;
  launched->Close(-1);
}
}  // namespace

LaunchedGroup* LaunchedGroup::RankZero() { return RankZeroGroup(); }

void LaunchedGroup::StartRankZero(const LaunchEnv& env) {
  if (RankZeroGroup() != nullptr) return;
  auto state = std::make_unique<State>();
  state->env = env;
  state->entry = Factories().empty() ? "?" : Factories().begin()->first;
  try {
    state->Join(WaitLimit());
  } catch (const std::exception& e) {
    std::cerr << state->Who() << ": cannot form the group of " << env.rank.world_size
              << " ranks at " << state->Where() << " within " << WaitLimit().count() / 1000
              << " s (TRICKBENCH_RANK_WAIT_S): " << Describe(e) << "\n";
    ExitProcess(1);
  }
  // Never destroyed: the watcher thread and the exit handler use it to the end.
  RankZeroGroup() = new LaunchedGroup(std::move(state));
  // Both exits: a trick process ends with std::quick_exit (harness/end_process.h), which
  // runs no atexit handler; without the goodbye there, rank 0 left while the others still
  // used its store (launcher_test failed so).
  std::atexit(Goodbye);
  std::at_quick_exit(Goodbye);
}

int64_t LaunchedGroup::Open(const std::string& entry, int threads) {
  State& s = *state_;
  if (const std::string why = s.Broken(); !why.empty()) throw RankFailure(why);
  const auto factory = Factories().find(entry);
  if (factory == Factories().end()) {
    throw RankFailure("no TRICKBENCH_RANK_MAIN named '" + entry + "' in this binary");
  }
  const int64_t id = s.next_id++;
  try {
    BroadcastValue(
        *s.group,
        Message("open", id,
                c10::ivalue::Tuple::create({c10::IValue(entry), c10::IValue(int64_t{threads})})),
        0, kCollectiveTimeout);
    s.instances[id] = {factory->second(*s.group, s.env.rank), threads};
  } catch (const std::exception& e) {
    const std::string why = s.ReportFailure("rank 0: opening '" + entry + "': " + Describe(e));
    s.SetBroken(why);
    throw RankFailure(why);
  }
  return id;
}

c10::IValue LaunchedGroup::Call(int64_t id, const c10::IValue& request) {
  State& s = *state_;
  if (const std::string why = s.Broken(); !why.empty()) throw RankFailure(why);
  const auto instance = s.instances.find(id);
  if (instance == s.instances.end()) throw RankFailure("no open instance " + std::to_string(id));
  try {
    BroadcastValue(*s.group, Message("call", id, request), 0, kCollectiveTimeout);
    // Rank 0's share of the cores while it is a rank; the harness's count after.
    const int saved = at::get_num_threads();
    UseThreads(instance->second.threads);
    c10::IValue reply;
    try {
      reply = instance->second.handler(request);
    } catch (...) {
      UseThreads(saved);
      throw;
    }
    UseThreads(saved);
    return reply;
  } catch (const std::exception& e) {
    const std::string why = s.ReportFailure("rank 0: " + Describe(e));
    s.SetBroken(why);
    throw RankFailure(why);
  }
}

void LaunchedGroup::Close(int64_t id) {
  State& s = *state_;
  if (id >= 0) s.instances.erase(id);
  if (!s.Broken().empty()) return;
  try {
    if (id >= 0) {
      BroadcastValue(*s.group, Message("close", id), 0, kCollectiveTimeout);
      return;
    }
    s.exiting = true;  // id -1: the goodbye
    BroadcastValue(*s.group, Message("exit", -1), 0, kGoodbyeWait);
    std::vector<torch::Tensor> heard{torch::ones({1})};
    c10d::AllreduceOptions options;
    options.timeout = kGoodbyeWait;
    s.group->allreduce(heard, options)->wait();
  } catch (const std::exception& e) {
    const std::string why = s.ReportFailure("rank 0: closing: " + Describe(e));
    s.SetBroken(why);
    std::cerr << s.Who() << ": " << why << "\n";
  }
}

void RegisterRankMain(const char* entry, RankHandlerFactory factory) {
  Factories().emplace(entry, factory);
}

void ServeLaunchedRank(const LaunchEnv& env, const std::string& entry, RankHandlerFactory factory) {
  auto* s = new LaunchedGroup::State;  // never destroyed: the watcher uses it to the end
  s->env = env;
  s->entry = entry;
  const milliseconds wait = WaitLimit();
  try {
    s->Join(wait);
  } catch (const std::exception& e) {
    std::cerr << s->Who() << ": cannot join the group of " << env.rank.world_size << " ranks at "
              << s->Where() << " within " << wait.count() / 1000
              << " s (TRICKBENCH_RANK_WAIT_S): " << Describe(e) << "\n";
    ExitProcess(1);
  }
  auto die = [s](const std::string& what) {
    const std::string why = s->ReportFailure("rank " + std::to_string(s->rank()) + ": " + what);
    std::cerr << s->Who() << ": " << why << "\n";
    ExitProcess(1);
  };
  UseThreads(1);
  while (true) {
    c10::IValue message;
    const auto start = Clock::now();
    try {
      message = BroadcastValue(*s->group, c10::IValue(), 0, wait);
    } catch (const std::exception& e) {
      if (Clock::now() - start >= wait - milliseconds(1000)) {
        die("no request from rank 0 within " + std::to_string(wait.count() / 1000) +
            " s (TRICKBENCH_RANK_WAIT_S); giving up");
      }
      die("lost the group while waiting for rank 0's next request: " + Describe(e));
    }
    const auto& m = message.toTupleRef().elements();
    const std::string& op = m.at(0).toStringRef();
    const int64_t id = m.at(1).toInt();
    try {
      if (op == "exit") {
        s->exiting = true;
        std::vector<torch::Tensor> heard{torch::ones({1})};
        c10d::AllreduceOptions options;
        options.timeout = kGoodbyeWait;
        s->group->allreduce(heard, options)->wait();
        ExitProcess(0);
      } else if (op == "open") {
        const auto& args = m.at(2).toTupleRef().elements();
        if (args.at(0).toStringRef() != entry) {
          die("rank 0 opened '" + args.at(0).toStringRef() + "', this binary serves '" + entry +
              "'");
        }
        s->instances[id] = {factory(*s->group, env.rank), static_cast<int>(args.at(1).toInt())};
      } else if (op == "close") {
        s->instances.erase(id);
      } else if (op == "call") {
        auto& instance = s->instances.at(id);
        UseThreads(instance.threads);
        instance.handler(m.at(2));
      } else {
        die("unknown message '" + op + "' from rank 0");
      }
    } catch (const std::exception& e) {
      die(op + ": " + Describe(e));
    }
  }
}

}  // namespace trickbench::distributed
