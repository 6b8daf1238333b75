#include "harness/fork_server.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "common/test_files.h"

namespace trickbench {
namespace {

using test_files::Read;
using test_files::ScratchDir;

// The main() the server's children run: prints its argv and pid, then does what
// its arguments say.
int FakeMain(int argc, char** argv) {
  std::printf("argv:");
  for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf("\npid %d group %d\n", static_cast<int>(getpid()), static_cast<int>(getpgrp()));
  std::fflush(stdout);
  std::fprintf(stderr, "on stderr\n");
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--abort") == 0) std::abort();
    if (std::strncmp(argv[i], "--exit=", 7) == 0) return std::atoi(argv[i] + 7);
  }
  return 0;
}

// A server in a child of the test, with a pipe each way.
class Server {
 public:
  explicit Server(bool with_thread = false) {
    int to[2], from[2];
    EXPECT_EQ(pipe(to), 0);
    EXPECT_EQ(pipe(from), 0);
    pid_ = fork();
    if (pid_ == 0) {
      close(to[1]);
      close(from[0]);
      if (with_thread) {
        std::thread([] { pause(); }).detach();
        while (ThreadCount() < 2) std::this_thread::yield();
      }
      _exit(ServeForks(to[0], from[1], "fake", FakeMain));
    }
    close(to[0]);
    close(from[1]);
    to_ = to[1];
    from_ = fdopen(from[0], "r");
  }
  ~Server() {
    if (to_ >= 0) close(to_);
    if (from_) fclose(from_);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  void Send(const std::string& line) {
    const std::string text = line + "\n";
    ASSERT_EQ(write(to_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  std::string Reply() {
    char buf[512];
    if (!std::fgets(buf, sizeof buf, from_)) return "<end>";
    std::string s = buf;
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  // The caller stops reading: the server's replies meet a closed pipe.
  void CloseReplies() {
    fclose(from_);
    from_ = nullptr;
  }
  // The server's exit status after its input is closed.
  int CloseAndWait() {
    close(to_);
    to_ = -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    return status;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  FILE* from_ = nullptr;
};

TEST(ServeForks, EachRequestIsAChildWithItsArgumentsAndItsOwnLogAndGroup) {
  const std::string dir = ScratchDir("serve_children");
  Server server;
  for (int k = 1; k <= 2; ++k) {
    const std::string log = dir + "/p" + std::to_string(k) + ".log";
    server.Send(R"({"args":["--process=)" + std::to_string(k) + R"(","--exit=)" +
                std::to_string(k + 2) + R"("],"log":")" + log + R"("})");
    const std::string started = server.Reply();
    ASSERT_EQ(started.rfind("started ", 0), 0u) << started;
    const std::string pid = started.substr(8);
    EXPECT_EQ(server.Reply(), "exited " + std::to_string(k + 2));
    // Both streams in the log; the child leads a process group of its own.
    EXPECT_EQ(Read(log), "argv: fake --process=" + std::to_string(k) +
                             " --exit=" + std::to_string(k + 2) + "\npid " + pid + " group " + pid +
                             "\non stderr\n");
  }
  EXPECT_EQ(server.CloseAndWait(), 0);  // end of input ends the server, status 0
}

TEST(ServeForks, AChildKilledByASignalIsReportedAsSuch) {
  const std::string dir = ScratchDir("serve_signal");
  Server server;
  server.Send(R"({"args":["--abort"],"log":")" + dir + R"(/a.log"})");
  EXPECT_EQ(server.Reply().rfind("started ", 0), 0u);
  EXPECT_EQ(server.Reply(), "signaled " + std::to_string(SIGABRT));
}

TEST(ServeForks, BadRequestsAreRefusedAndTheServerGoesOn) {
  const std::string dir = ScratchDir("serve_refusals");
  Server server;
  server.Send("not json");
  EXPECT_EQ(server.Reply(), "refused bad request: not a JSON object");
  server.Send(R"({"args":[1],"log":"x"})");
  EXPECT_EQ(server.Reply(), "refused bad request: \"args\" holds a non-string");
  server.Send(R"({"args":[]})");
  EXPECT_EQ(server.Reply(), "refused bad request: no \"log\" string");
  server.Send(R"({"args":[],"log":")" + dir + R"(/missing/folder/x.log"})");
  const std::string refused = server.Reply();
  EXPECT_EQ(refused.rfind("refused cannot write " + dir + "/missing/folder/x.log: ", 0), 0u)
      << refused;
  server.Send(R"({"args":["--exit=0"],"log":")" + dir + R"(/ok.log"})");
  EXPECT_EQ(server.Reply().rfind("started ", 0), 0u);
  EXPECT_EQ(server.Reply(), "exited 0");
}

// A child runs only once the caller has been told its pid: a caller that never hears
// of it would run the request another way, beside a child that no one supervises.
TEST(ServeForks, AChildWhoseStartCannotBeToldRunsNothing) {
  const std::string dir = ScratchDir("serve_untold");
  Server server;
  server.CloseReplies();
  server.Send(R"({"args":["--exit=0"],"log":")" + dir + R"(/untold.log"})");
  const int status = server.CloseAndWait();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);         // the caller has gone
  EXPECT_EQ(Read(dir + "/untold.log"), "");  // FakeMain never printed its argv
}

TEST(ServeForks, AServerWithAThreadRefusesToFork) {
  const std::string dir = ScratchDir("serve_thread");
  Server server(/*with_thread=*/true);
  server.Send(R"({"args":[],"log":")" + dir + R"(/x.log"})");
  EXPECT_EQ(server.Reply(), "refused the server runs 2 threads, and a fork copies only one");
}

TEST(ThreadCount, CountsThisProcesssThreads) {
  const int before = ThreadCount();
  ASSERT_GE(before, 1);
  bool stop = false;
  std::thread t([&] {
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) std::this_thread::yield();
  });
  EXPECT_EQ(ThreadCount(), before + 1);
  __atomic_store_n(&stop, true, __ATOMIC_RELEASE);
  t.join();
}

}  // namespace
}  // namespace trickbench
