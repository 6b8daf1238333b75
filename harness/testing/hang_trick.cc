// Test-only trick that starts a child process (which stays in the trick's process
// group) and then hangs, to show that run_all's time limit and its SIGINT/SIGTERM
// handling stop it and leave nothing behind (run_all/cli_test.cc). The child's pid
// goes to $TRICKBENCH_TEST_PIDFILE so the test can check it is gone.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "harness/trick.h"

namespace {

class Hang : public trickbench::Trick {
 public:
  void SetUp(const trickbench::Instance&) override {
    const pid_t child = fork();
    if (child == 0) {
      execl("/bin/sleep", "sleep", "600", static_cast<char*>(nullptr));
      _exit(127);
    }
    if (const char* f = std::getenv("TRICKBENCH_TEST_PIDFILE")) std::ofstream(f) << child << "\n";
    std::this_thread::sleep_for(std::chrono::hours(1));
  }
  void Nothing() {}
  trickbench::Tensors Result() override { return {torch::ones({1})}; }
};

}  // namespace

TRICKBENCH_TRICK(hang, Hang)
    .Category("test")
    .Source("test")
    .Claim("hangs")
    .Variant("baseline", &Hang::Nothing)
    .Variant("optimized", &Hang::Nothing);
