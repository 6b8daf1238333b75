#include "run_all/child.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

#include "common/test_files.h"

namespace trickbench {
namespace run_all {
namespace {

using test_files::Read;
using test_files::ScratchDir;

// Runs `script` under /bin/sh with its output in dir/log.
struct Shell {
  std::string dir;
  explicit Shell(const std::string& name) : dir(ScratchDir(name)) {}
  ChildExit Run(const std::string& script, double timeout = 30,
                const volatile sig_atomic_t* stop = nullptr, double grace = 3) {
    const int fd = open((dir + "/log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(fd, 0);
    const ChildExit e = RunInGroup({"/bin/sh", "-c", script}, fd, timeout, stop, grace);
    close(fd);
    return e;
  }
  std::string Log() const { return Read(dir + "/log"); }
};

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

TEST(RunInGroup, ExitCodeAndOutputBothStreams) {
  Shell sh("exit");
  const ChildExit e = sh.Run("echo out; echo err >&2; exit 7");
  EXPECT_TRUE(e.started);
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.exit_code, 7);
  EXPECT_FALSE(e.timed_out);
  EXPECT_EQ(e.stopped_by, 0);
  EXPECT_EQ(sh.Log(), "out\nerr\n");
}

TEST(RunInGroup, RunsInItsOwnProcessGroup) {
  Shell sh("group");
  // Field 5 of /proc/<pid>/stat is the process group.
  const ChildExit e = sh.Run("set -- $(cat /proc/$$/stat); test \"$5\" = \"$$\"");
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.exit_code, 0) << "the child is not the leader of its own group";
}

TEST(RunInGroup, ASignalOfItsOwnIsReported) {
  Shell sh("crash");
  const ChildExit e = sh.Run("kill -ABRT $$");
  EXPECT_FALSE(e.exited);
  EXPECT_EQ(e.term_signal, SIGABRT);
  EXPECT_EQ(e.exit_code, -1);
}

TEST(RunInGroup, TimeLimitTakesDownTheWholeGroup) {
  Shell sh("timeout");
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

TEST(RunInGroup, AChildThatIgnoresTheSignalIsKilledAfterTheGrace) {
  Shell sh("stubborn");
  const ChildExit e =
      sh.Run("trap '' TERM; while :; do sleep 0.05; done", /*timeout=*/0.3, nullptr, /*grace=*/0.5);
  EXPECT_TRUE(e.timed_out);
  EXPECT_EQ(e.term_signal, SIGKILL);
  EXPECT_LT(e.seconds, 10);
}

TEST(RunInGroup, AStopRequestForwardsItsSignalToTheGroup) {
  Shell sh("stop");
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

TEST(SignalName, NamesTheOnesRunAllMeets) {
  EXPECT_EQ(SignalName(SIGINT), "SIGINT");
  EXPECT_EQ(SignalName(SIGTERM), "SIGTERM");
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(SignalName(SIGUSR1), "signal " + std::to_string(SIGUSR1));
}

}  // namespace
}  // namespace run_all
}  // namespace trickbench
