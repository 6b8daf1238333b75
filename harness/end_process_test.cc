// EndProcess flushes the output, runs the at_quick_exit handlers, exits with the code,
// and runs no static destructor.
#include "harness/end_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace trickbench {
namespace {

int g_marks = -1;  // the child's end of the marks pipe

void Mark(char c) {
  if (write(g_marks, &c, 1) != 1) _exit(99);
}

// Registered with __cxa_atexit when constructed: std::exit would run its destructor.
struct MarksWhenDestroyed {
  ~MarksWhenDestroyed() { Mark('d'); }
};

std::string ReadAll(int fd) {
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

TEST(EndProcess, FlushesRunsQuickExitHandlersAndSkipsStaticDestructors) {
  int out[2], marks[2];
  ASSERT_EQ(pipe(out), 0);
  ASSERT_EQ(pipe(marks), 0);
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(out[0]);
    close(marks[0]);
    dup2(out[1], 1);
    g_marks = marks[1];
    static MarksWhenDestroyed destroyed_at_exit;
    std::at_quick_exit([] { Mark('q'); });
    std::cout << "buffered";  // a pipe: fully buffered, nothing written yet
    std::printf(" and C");
    EndProcess(7);
  }
  close(out[1]);
  close(marks[1]);
  const std::string printed = ReadAll(out[0]);
  const std::string marked = ReadAll(marks[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(printed, "buffered and C");
  EXPECT_EQ(marked, "q") << "'d': a static destructor ran";
  close(out[0]);
  close(marks[0]);
}

}  // namespace
}  // namespace trickbench
