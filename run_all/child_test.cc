#include "run_all/child.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <fstream>
#include <thread>

#include "common/test_files.h"
#include "run_all/fork_client.h"

namespace trickbench {
namespace run_all {
namespace {

using test_files::Read;
using test_files::ScratchDir;

std::string g_fork_server;  // --fork_server: run_all/fork_server_for_tests

// How a test starts its child: RunInGroup's fork and exec, or a fork server's fork
// (fork_client.h). Every supervision test runs with both: run_all treats them alike.
enum class Start { kExec, kForkServer };

std::string Name(const testing::TestParamInfo<Start>& info) {
  return info.param == Start::kExec ? "Exec" : "ForkServer";
}

// Runs `script` under /bin/sh with its output in dir/log.
struct Shell {
  std::string dir;
  Start start;
  Shell(const std::string& name, Start s)
      : dir(ScratchDir(name + (s == Start::kExec ? "_exec" : "_fork"))), start(s) {}
  ChildExit Run(const std::string& script, double timeout = 30,
                const volatile sig_atomic_t* stop = nullptr, double grace = 3) {
    const std::string log = dir + "/log";
    if (start == Start::kForkServer) {
      // The server's children run `/bin/sh -c ARG`.
      ForkServer server(g_fork_server);
      return server.Run({script}, log, timeout, stop, grace);
    }
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(fd, 0);
    const ChildExit e = RunInGroup({"/bin/sh", "-c", script}, fd, timeout, stop, grace);
    close(fd);
    return e;
  }
  std::string Log() const { return Read(dir + "/log"); }
};

class Supervised : public testing::TestWithParam<Start> {};

// True once no process has this pid (an orphan's zombie is reaped by init), waiting
// up to 5 s.
bool Gone(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

pid_t ReadPid(const std::string& path) {
  pid_t pid = 0;
  std::ifstream(path) >> pid;
  return pid;
}

TEST_P(Supervised, ExitCodeAndOutputBothStreams) {
  Shell sh("exit", GetParam());
  const ChildExit e = sh.Run("echo out; echo err >&2; exit 7");
  EXPECT_TRUE(e.started);
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.exit_code, 7);
  EXPECT_FALSE(e.timed_out);
  EXPECT_EQ(e.stopped_by, 0);
  EXPECT_EQ(sh.Log(), "out\nerr\n");
}

TEST_P(Supervised, RunsInItsOwnProcessGroup) {
  Shell sh("group", GetParam());
  // Field 5 of /proc/<pid>/stat is the process group.
  const ChildExit e = sh.Run("set -- $(cat /proc/$$/stat); test \"$5\" = \"$$\"");
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.exit_code, 0) << "the child is not the leader of its own group";
}

TEST_P(Supervised, ASignalOfItsOwnIsReported) {
  Shell sh("crash", GetParam());
  const ChildExit e = sh.Run("kill -ABRT $$");
  EXPECT_FALSE(e.exited);
  EXPECT_EQ(e.term_signal, SIGABRT);
  EXPECT_EQ(e.exit_code, -1);
}

TEST_P(Supervised, TimeLimitTakesDownTheWholeGroup) {
  Shell sh("timeout", GetParam());
  const std::string pidfile = sh.dir + "/sleeper";
  const ChildExit e = sh.Run("sleep 600 & echo $! > " + pidfile + "; wait", /*timeout=*/0.5);
  EXPECT_TRUE(e.timed_out);
  EXPECT_FALSE(e.exited);
  EXPECT_EQ(e.term_signal, SIGTERM);
  EXPECT_LT(e.seconds, 10);
  const pid_t sleeper = ReadPid(pidfile);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(Gone(sleeper)) << "the child's own child " << sleeper << " was left running";
}

TEST_P(Supervised, AChildThatIgnoresTheSignalIsKilledAfterTheGrace) {
  Shell sh("stubborn", GetParam());
  const ChildExit e =
      sh.Run("trap '' TERM; while :; do sleep 0.05; done", /*timeout=*/0.3, nullptr, /*grace=*/0.5);
  EXPECT_TRUE(e.timed_out);
  EXPECT_EQ(e.term_signal, SIGKILL);
  EXPECT_LT(e.seconds, 10);
}

TEST_P(Supervised, AStopRequestForwardsItsSignalToTheGroup) {
  Shell sh("stop", GetParam());
  volatile sig_atomic_t stop = 0;
  std::thread requester([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = SIGINT;
  });
  // The script reports the signal it got and exits by itself (a trick cleaning up).
  const ChildExit e = sh.Run("trap 'echo got INT; exit 5' INT; while :; do sleep 0.05; done",
                             /*timeout=*/60, &stop);
  requester.join();
  EXPECT_EQ(e.stopped_by, SIGINT);
  EXPECT_FALSE(e.timed_out);
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.exit_code, 5);
  EXPECT_EQ(sh.Log(), "got INT\n");
}

TEST(RunInGroup, AProgramThatCannotRunExits127WithTheReason) {
  const std::string dir = ScratchDir("noexec");
  const int fd = open((dir + "/log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const ChildExit e = RunInGroup({dir + "/missing"}, fd, 10, nullptr);
  close(fd);
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.exit_code, 127);
  EXPECT_NE(Read(dir + "/log").find("cannot execute " + dir + "/missing"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(BothWays, Supervised, testing::Values(Start::kExec, Start::kForkServer),
                         Name);

TEST(ForkServer, ThatCannotStartSaysSoOnEveryRun) {
  const std::string dir = ScratchDir("no_server");
  ForkServer server(dir + "/missing");
  for (int i = 0; i < 2; ++i) {
    const ChildExit e = server.Run({"exit 0"}, dir + "/log", 10, nullptr);
    EXPECT_FALSE(e.started);
    EXPECT_EQ(e.start_error, "the fork server exited with code 127");
  }
}

TEST(ForkServer, ARefusalRunsNothingAndTheServerGoesOn) {
  const std::string dir = ScratchDir("refusal");
  ForkServer server(g_fork_server);
  const ChildExit refused = server.Run({"exit 0"}, dir + "/no/such/folder/log", 10, nullptr);
  EXPECT_FALSE(refused.started);
  EXPECT_EQ(refused.start_error.rfind(
                "the fork server refused: cannot write " + dir + "/no/such/folder/log: ", 0),
            0u)
      << refused.start_error;
  EXPECT_EQ(server.broken(), "");
  const ChildExit e = server.Run({"echo again; exit 4"}, dir + "/log", 10, nullptr);
  EXPECT_TRUE(e.started);
  EXPECT_EQ(e.exit_code, 4);
  EXPECT_EQ(Read(dir + "/log"), "again\n");
}

TEST(ForkServer, ChildrenOfOneServerAreSeparateProcesses) {
  const std::string dir = ScratchDir("siblings");
  ForkServer server(g_fork_server);
  const ChildExit a = server.Run({"echo $$"}, dir + "/a", 10, nullptr);
  const ChildExit b = server.Run({"echo $$"}, dir + "/b", 10, nullptr);
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_EQ(b.exit_code, 0);
  EXPECT_NE(Read(dir + "/a"), "");
  EXPECT_NE(Read(dir + "/a"), Read(dir + "/b"));
}

// True once `pid`, a child of this process, has ended and awaits its reaping (so its
// pipes are closed), waiting up to 5 s.
bool Ended(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    const std::string stat = Read("/proc/" + std::to_string(pid) + "/stat");
    const size_t paren = stat.rfind(')');
    if (paren != std::string::npos && stat.compare(paren, 4, ") Z ") == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The OOM killer, or a user's kill, takes a server down between two processes: the next
// request meets a closed pipe. The caller lives on (this test would end with SIGPIPE)
// and is told how the server ended, on every later Run too.
TEST(ForkServer, KilledBetweenRunsSaysHowAndTheCallerLives) {
  const std::string dir = ScratchDir("killed");
  ForkServer server(g_fork_server);
  const ChildExit first = server.Run({"echo $PPID"}, dir + "/pid", 10, nullptr);
  ASSERT_TRUE(first.started);
  const pid_t server_pid = ReadPid(dir + "/pid");
  ASSERT_GT(server_pid, 0);
  ASSERT_EQ(kill(server_pid, SIGKILL), 0);
  ASSERT_TRUE(Ended(server_pid));
  for (int i = 0; i < 2; ++i) {
    const ChildExit e = server.Run({"exit 0"}, dir + "/log", 10, nullptr);
    EXPECT_FALSE(e.started);
    EXPECT_EQ(e.start_error, "the fork server was killed by SIGKILL");
  }
  EXPECT_EQ(server.broken(), "the fork server was killed by SIGKILL");
}

// The server killed while its child runs: the child's end is not known, so its group is
// taken down and it is recorded as killed; the server is marked gone. (A child runs only
// once the server has written its "started" line, so the kill always comes after it.)
TEST(ForkServer, KilledWhileItsChildRunsTakesTheChildDown) {
  const std::string dir = ScratchDir("killed_mid_child");
  ForkServer server(g_fork_server);
  const ChildExit e = server.Run({"echo $$ > " + dir + "/child; kill -9 $PPID; sleep 30; exit 0"},
                                 dir + "/log", 20, nullptr);
  EXPECT_TRUE(e.started);
  EXPECT_FALSE(e.exited);
  EXPECT_EQ(e.term_signal, SIGKILL);
  EXPECT_LT(e.seconds, 10);  // not the child's 30 s sleep, nor the time limit
  EXPECT_EQ(server.broken(), "the fork server was killed by SIGKILL");
  const pid_t child = ReadPid(dir + "/child");
  ASSERT_GT(child, 0);
  EXPECT_TRUE(Gone(child)) << "the child was left running";
}

// A server that takes no request within the time limit is given up and killed, so that
// it cannot start the request later, beside the exec'd process that replaces it.
TEST(ForkServer, ThatDoesNotAnswerIsKilled) {
  const std::string dir = ScratchDir("mute");
  const std::string script = dir + "/mute_server";
  test_files::Write(script, "#!/bin/sh\necho $$ > " + dir + "/pid\nexec sleep 100\n");
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  ForkServer server(script);
  const ChildExit e = server.Run({"exit 0"}, dir + "/log", 0.5, nullptr);
  EXPECT_FALSE(e.started);
  EXPECT_EQ(e.start_error, "the fork server did not answer within 0.5 s");
  const pid_t pid = ReadPid(dir + "/pid");
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(Ended(pid)) << "the server was left running";
}

TEST(SignalName, NamesTheOnesRunAllMeets) {
  EXPECT_EQ(SignalName(SIGINT), "SIGINT");
  EXPECT_EQ(SignalName(SIGTERM), "SIGTERM");
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(SignalName(SIGUSR1), "signal " + std::to_string(SIGUSR1));
}

}  // namespace
}  // namespace run_all
}  // namespace trickbench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    trickbench::test_files::ArgValue(argv[i], "--fork_server", &trickbench::run_all::g_fork_server);
  }
  if (trickbench::run_all::g_fork_server.empty()) {
    std::fprintf(stderr, "child_test: --fork_server=PATH is required\n");
    return 2;
  }
  return RUN_ALL_TESTS();
}
