#include "common/write_all.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>

namespace trickbench {
namespace {

bool Pending(int sig) {
  sigset_t set;
  sigpending(&set);
  return sigismember(&set, sig) == 1;
}

bool Blocked(int sig) {
  sigset_t set;
  pthread_sigmask(SIG_BLOCK, nullptr, &set);
  return sigismember(&set, sig) == 1;
}

TEST(WriteAll, WritesTextLongerThanThePipeHoldsWhole) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  const std::string text(1 << 20, 'x');  // the pipe holds 64 KiB: many partial writes
  std::string got;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  });
  EXPECT_TRUE(WriteAll(fds[1], text));
  close(fds[1]);
  reader.join();
  close(fds[0]);
  EXPECT_EQ(got.size(), text.size());
  EXPECT_EQ(got, text);
}

TEST(WriteAll, AReaderThatHasGoneIsEpipeAndTheWriterLives) {
  signal(SIGPIPE, SIG_DFL);  // the default action: a SIGPIPE would end this test
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  close(fds[0]);
  errno = 0;
  EXPECT_FALSE(WriteAll(fds[1], "request\n"));
  EXPECT_EQ(errno, EPIPE);
  close(fds[1]);
  // Still here, nothing left pending to kill the process later, SIGPIPE not left blocked.
  EXPECT_FALSE(Pending(SIGPIPE));
  EXPECT_FALSE(Blocked(SIGPIPE));
}

TEST(WriteAll, ASigpipePendingBeforeTheCallStaysPending) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &pipe_only, &old), 0);
  ASSERT_EQ(pthread_kill(pthread_self(), SIGPIPE), 0);
  ASSERT_TRUE(Pending(SIGPIPE));
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  close(fds[0]);
  EXPECT_FALSE(WriteAll(fds[1], "x"));
  close(fds[1]);
  EXPECT_TRUE(Pending(SIGPIPE)) << "the caller's own SIGPIPE was taken";
  EXPECT_TRUE(Blocked(SIGPIPE)) << "the caller's mask was not restored";
  const timespec now = {0, 0};
  EXPECT_EQ(sigtimedwait(&pipe_only, nullptr, &now), SIGPIPE);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

TEST(WriteAll, ABadDescriptorIsEbadf) {
  errno = 0;
  EXPECT_FALSE(WriteAll(-1, "x"));
  EXPECT_EQ(errno, EBADF);
}

TEST(WriteAll, NothingToWriteIsDone) { EXPECT_TRUE(WriteAll(-1, "")); }

}  // namespace
}  // namespace trickbench
