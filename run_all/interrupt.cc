#include "run_all/interrupt.h"

namespace trickbench {
namespace run_all {
namespace {

// One per process: a signal handler has no other way to reach its latch.
volatile sig_atomic_t g_signal = 0;

void Record(int signal) {
  if (g_signal == 0) g_signal = signal;
}

}  // namespace

InterruptLatch::InterruptLatch() {
  g_signal = 0;
  struct sigaction action = {};
  action.sa_handler = Record;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns so the loop sees it sooner
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

InterruptLatch::~InterruptLatch() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

const volatile sig_atomic_t* InterruptLatch::flag() const { return &g_signal; }

}  // namespace run_all
}  // namespace trickbench
