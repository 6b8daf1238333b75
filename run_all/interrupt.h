// InterruptLatch: turns SIGINT and SIGTERM into a request that run_all's loop answers,
// instead of a death that leaves the running trick orphaned and no index written.
//
//   InterruptLatch latch;                         // installs the handlers
//   RunInGroup(argv, fd, timeout, latch.flag());  // forwards the signal to the trick
//   if (latch.signal()) { /* record, write index.json (complete: false) */
//     return 128 + latch.signal(); }
//
// The handler only stores the signal number (the first one wins): everything else is
// done by the loop, outside the handler, where writing files is safe.
#pragma once

#include <signal.h>

namespace trickbench {
namespace run_all {

class InterruptLatch {
 public:
  InterruptLatch();   // installs the handlers for SIGINT and SIGTERM
  ~InterruptLatch();  // restores the previous ones
  InterruptLatch(const InterruptLatch&) = delete;
  InterruptLatch& operator=(const InterruptLatch&) = delete;

  // 0, or the first of SIGINT/SIGTERM received since construction.
  int signal() const { return *flag(); }
  const volatile sig_atomic_t* flag() const;

 private:
  struct sigaction previous_int_, previous_term_;
};

}  // namespace run_all
}  // namespace trickbench
