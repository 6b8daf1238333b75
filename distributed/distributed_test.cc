// Tests of distributed/: environment parsing, the control channel, and rank groups of this
// test binary re-executed as ranks (the TRICKBENCH_RANK_MAIN below), including ranks
// that are killed, hang, throw, or lose their parent: each time the failure is
// reported and no rank process remains.
#include <torch/utils.h>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "distributed/channel.h"
#include "distributed/process_group.h"
#include "distributed/rank_env.h"
#include "distributed/rank_group.h"
#include "distributed/rank_main.h"

namespace trickbench::distributed {
namespace {

c10::IValue Request(const std::string& command, c10::IValue payload = c10::IValue()) {
  return c10::ivalue::Tuple::create({c10::IValue(command), std::move(payload)});
}

// The test ranks: each request is (command, payload).
//   sum:     all-reduce of the payload tensor
//   pids:    every rank's pid, by all-reduce of a one-hot vector
//   hang:    rank 1 sleeps for an hour, rank 0 waits for it in an all-reduce
//   throw:   rank 0's handler throws
//   sgd:     one data-parallel SGD step of a linear model on the rank's half of the
//            batch, grads averaged with AverageGradients; reply: the new weight
RankHandler MakeTestHandler(Group& group, const RankEnv& env) {
  return [&group, env](const c10::IValue& request) -> c10::IValue {
    const auto& e = request.toTupleRef().elements();
    const std::string command = e.at(0).toStringRef();
    if (command == "sum") {
      std::vector<torch::Tensor> t{e.at(1).toTensor().clone()};
      group.allreduce(t)->wait();
      return t[0];
    }
    if (command == "pids") {
      std::vector<torch::Tensor> t{torch::zeros({env.world_size}, torch::kLong)};
      t[0][env.rank] = static_cast<int64_t>(getpid());
      group.allreduce(t)->wait();
      return t[0];
    }
    if (command == "hang") {
      if (env.rank == 1) std::this_thread::sleep_for(std::chrono::hours(1));
      std::vector<torch::Tensor> t{torch::ones({1})};
      group.allreduce(t)->wait();
      return t[0];
    }
    if (command == "throw") {
      if (env.rank == 0) throw std::runtime_error("handler refused");
      return c10::IValue();
    }
    if (command == "sgd") {
      const auto& args = e.at(1).toTupleRef().elements();
      const torch::Tensor weight = args.at(0).toTensor();
      const torch::Tensor input = args.at(1).toTensor();
      const torch::Tensor target = args.at(2).toTensor();
      const int64_t shard = input.size(0) / env.world_size;
      auto w = weight.clone().requires_grad_(true);
      auto x = input.narrow(0, env.rank * shard, shard);
      auto y = target.narrow(0, env.rank * shard, shard);
      torch::mse_loss(torch::matmul(x, w.t()), y).backward();
      AverageGradients(group, {w});
      torch::NoGradGuard no_grad;
      w.sub_(0.1 * w.grad());
      return w.detach();
    }
    if (command == "in_sync") {  // the ranks' copies, rank `e[1]` one ulp off (-1: none)
      torch::Tensor t = torch::arange(4.0);
      if (e.at(1).toInt() == env.rank) t[2] = std::nextafter(2.0f, 3.0f);
      return InSyncWithRankZero(group, {t, torch::ones({2, 2})});
    }
    throw std::invalid_argument("unknown test command " + command);
  };
}
TRICKBENCH_RANK_MAIN(distributed_test_ranks, MakeTestHandler);

RankGroupOptions TestOptions() {
  RankGroupOptions o;
  o.entry = "distributed_test_ranks";
  o.world_size = 2;
  o.reply_timeout = std::chrono::milliseconds(30000);
  return o;
}

// True when pid is gone: reaped, or a zombie waiting for a reaper that is not us.
bool Gone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

void ExpectAllGone(const std::vector<pid_t>& pids) {
  ASSERT_FALSE(pids.empty());
  for (pid_t pid : pids) EXPECT_TRUE(Gone(pid)) << "rank pid " << pid << " is still running";
}

std::map<std::string, std::string> g_env;
const char* FakeEnv(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

TEST(RankEnv, ParsesTheFourVariables) {
  g_env = {
      {"RANK", "1"}, {"WORLD_SIZE", "3"}, {"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "29500"}};
  std::string error;
  const auto env = ParseRankEnv(FakeEnv, &error);
  ASSERT_TRUE(env) << error;
  EXPECT_EQ(env->rank, 1);
  EXPECT_EQ(env->world_size, 3);
  EXPECT_EQ(env->master_addr, "10.0.0.5");
  EXPECT_EQ(env->master_port, 29500);
  EXPECT_FALSE(env->loopback());
  g_env["MASTER_ADDR"] = "127.0.0.1";
  EXPECT_TRUE(ParseRankEnv(FakeEnv, &error)->loopback());
}

TEST(RankEnv, RejectsBadValuesWithTheirName) {
  const std::map<std::string, std::string> good = {
      {"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}};
  const std::vector<std::pair<std::string, std::string>> bad = {{"RANK", "2"},
                                                                {"RANK", "-1"},
                                                                {"RANK", "x"},
                                                                {"WORLD_SIZE", "0"},
                                                                {"WORLD_SIZE", "2.5"},
                                                                {"MASTER_PORT", "0"},
                                                                {"MASTER_PORT", "70000"},
                                                                {"MASTER_PORT", ""},
                                                                {"MASTER_ADDR", ""}};
  for (const auto& [name, value] : bad) {
    g_env = good;
    g_env[name] = value;
    std::string error;
    EXPECT_FALSE(ParseRankEnv(FakeEnv, &error)) << name << "=" << value;
    EXPECT_NE(error.find(name), std::string::npos) << error;
  }
  g_env = good;
  g_env.erase("MASTER_PORT");
  std::string error;
  EXPECT_FALSE(ParseRankEnv(FakeEnv, &error));
  EXPECT_EQ(error, "MASTER_PORT is not set");
}

TEST(RankEnv, FreeLoopbackPortIsFree) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  close(fd);
}

TEST(Channel, FramesRoundTripAndEndsAreDetected) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const std::vector<char> payload = Pickle(c10::IValue(torch::arange(5)));
  ASSERT_TRUE(SendFrame(fds[0], FrameKind::kRequest, payload));
  Frame frame;
  ASSERT_EQ(ReceiveFrame(fds[1], &frame), ReceiveStatus::kOk);
  EXPECT_EQ(frame.kind, FrameKind::kRequest);
  EXPECT_TRUE(torch::equal(Unpickle(frame.payload).toTensor(), torch::arange(5)));
  // A frame with an unknown kind byte is malformed, not a message.
  ASSERT_EQ(write(fds[0], "Z00000000", 9), 9);
  EXPECT_EQ(ReceiveFrame(fds[1], &frame), ReceiveStatus::kMalformed);
  close(fds[0]);
  EXPECT_EQ(ReceiveFrame(fds[1], &frame), ReceiveStatus::kClosed);
  // Writing to a closed peer fails instead of raising SIGPIPE.
  EXPECT_FALSE(SendFrame(fds[1], FrameKind::kReply, payload));
  close(fds[1]);
}

TEST(RankGroup, RejectsBadOptions) {
  RankGroupOptions o = TestOptions();
  o.entry = "";
  EXPECT_THROW(RankGroup{o}, std::invalid_argument);
  o = TestOptions();
  o.world_size = 0;
  EXPECT_THROW(RankGroup{o}, std::invalid_argument);
  o = TestOptions();
  o.local_ranks = 3;
  EXPECT_THROW(RankGroup{o}, std::invalid_argument);
  o = TestOptions();
  o.threads_per_rank = 0;
  EXPECT_THROW(RankGroup{o}, std::invalid_argument);
}

TEST(RankGroup, RanksAreSeparateProcessesAndAllReduce) {
  std::vector<pid_t> pids;
  {
    RankGroup group(TestOptions());
    pids = group.pids();
    ASSERT_EQ(pids.size(), 2u);
    const torch::Tensor sum = group.Call(Request("sum", torch::arange(4.0))).toTensor();
    EXPECT_TRUE(torch::equal(sum, 2 * torch::arange(4.0)));
    const torch::Tensor rank_pids = group.Call(Request("pids")).toTensor();
    EXPECT_EQ(rank_pids[0].item<int64_t>(), pids[0]);
    EXPECT_EQ(rank_pids[1].item<int64_t>(), pids[1]);
    EXPECT_NE(pids[0], getpid());
  }
  ExpectAllGone(pids);
}

// The equivalence behind DDP: two ranks each on half the batch, grads averaged, give
// the update of one process on the whole batch. Tolerance: fp32, the mean is formed
// as (sum of half A / n + sum of half B / n) / 2 instead of one sum / 2n, a few ulp
// apart; rtol 1e-5, atol 1e-6 bounds that and would catch a missing division
// (a factor of 2) or a wrong shard.
TEST(RankGroup, AveragedGradientsEqualTheFullBatchUpdate) {
  torch::manual_seed(7);
  const torch::Tensor weight = torch::randn({4, 8});
  const torch::Tensor input = torch::randn({16, 8});
  const torch::Tensor target = torch::randn({16, 4});
  RankGroup group(TestOptions());
  const torch::Tensor ranks_weight =
      group.Call(Request("sgd", c10::ivalue::Tuple::create({weight, input, target}))).toTensor();
  auto w = weight.clone().requires_grad_(true);
  torch::mse_loss(torch::matmul(input, w.t()), target).backward();
  const torch::Tensor full_batch = (w - 0.1 * w.grad()).detach();
  EXPECT_TRUE(torch::allclose(ranks_weight, full_batch, 1e-5, 1e-6))
      << (ranks_weight - full_batch).abs().max();
  EXPECT_FALSE(torch::allclose(ranks_weight, weight, 1e-5, 1e-6)) << "the step changed nothing";
}

TEST(RankGroup, InSyncWithRankZeroSeesOneUlpOnAnyRank) {
  RankGroup group(TestOptions());
  EXPECT_TRUE(group.Call(Request("in_sync", c10::IValue(int64_t{-1}))).toBool());
  EXPECT_FALSE(group.Call(Request("in_sync", c10::IValue(int64_t{1}))).toBool());
  EXPECT_FALSE(group.Call(Request("in_sync", c10::IValue(int64_t{0}))).toBool());
}

TEST(RankGroup, RankKilledMidRunIsReportedAndNoneRemain) {
  RankGroup group(TestOptions());
  const std::vector<pid_t> pids = group.pids();
  group.Call(Request("sum", torch::ones({3})));
  ASSERT_EQ(kill(pids[1], SIGKILL), 0);
  try {
    group.Call(Request("sum", torch::ones({3})));
    ADD_FAILURE() << "a call with rank 1 dead succeeded";
  } catch (const RankFailure& e) {
    const std::string what = e.what();
    // Rank 1's death or rank 0's failed all-reduce, whichever is seen first.
    EXPECT_TRUE(what.find("rank 1") != std::string::npos ||
                what.find("rank 0") != std::string::npos)
        << what;
  }
  EXPECT_FALSE(group.alive());
  ExpectAllGone(pids);
  EXPECT_THROW(group.Call(Request("sum", torch::ones({3}))), RankFailure);
}

TEST(RankGroup, HangingRankTimesOutAndIsKilled) {
  RankGroupOptions o = TestOptions();
  // The timeout covers the first call's start-up too: on a loaded 2-core machine starting
  // two ranks took over 3 s (CI saw it), so the limit leaves room for that.
  o.reply_timeout = std::chrono::milliseconds(10000);
  RankGroup group(o);
  group.Call(Request("sum", torch::ones({1})));  // started and joined
  const auto start = std::chrono::steady_clock::now();
  try {
    group.Call(Request("hang"));
    ADD_FAILURE() << "a hanging rank replied";
  } catch (const RankFailure& e) {
    EXPECT_NE(std::string(e.what()).find("hangs"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(25));
  ExpectAllGone(group.pids());
}

TEST(RankGroup, HandlerErrorReachesTheCaller) {
  RankGroup group(TestOptions());
  try {
    group.Call(Request("throw"));
    ADD_FAILURE() << "no error";
  } catch (const RankFailure& e) {
    EXPECT_NE(std::string(e.what()).find("handler refused"), std::string::npos) << e.what();
  }
  ExpectAllGone(group.pids());
}

TEST(RankGroup, MissingExecutableIsAFailureNotAHang) {
  RankGroupOptions o = TestOptions();
  o.executable = "/nonexistent/trickbench";
  RankGroup group(o);
  try {
    group.Call(Request("sum", torch::ones({1})));
    ADD_FAILURE() << "no error";
  } catch (const RankFailure& e) {
    EXPECT_NE(std::string(e.what()).find("exited with code 127"), std::string::npos) << e.what();
  }
  ExpectAllGone(group.pids());
}

// The benchmark process itself killed (no destructor, no Stop): its ranks die with it
// (parent-death signal) instead of waiting forever.
TEST(RankGroup, RanksDieWithTheirParent) {
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t driver = fork();
  ASSERT_GE(driver, 0);
  if (driver == 0) {
    close(report[0]);
    RankGroup group(TestOptions());
    group.Call(Request("sum", torch::ones({1})));
    const std::vector<pid_t> pids = group.pids();
    (void)!write(report[1], pids.data(), pids.size() * sizeof(pid_t));
    pause();
    _exit(0);
  }
  close(report[1]);
  std::vector<pid_t> pids(2);
  ASSERT_EQ(read(report[0], pids.data(), 2 * sizeof(pid_t)),
            static_cast<ssize_t>(2 * sizeof(pid_t)));
  close(report[0]);
  for (pid_t pid : pids) EXPECT_FALSE(Gone(pid));
  kill(driver, SIGKILL);
  waitpid(driver, nullptr, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline && !(Gone(pids[0]) && Gone(pids[1]))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ExpectAllGone(pids);
}

}  // namespace
}  // namespace trickbench::distributed

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
