#include "common/write_all.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace trickbench {

bool WriteAll(int fd, std::string_view text) {
  sigset_t pipe_only, old, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  // A SIGPIPE from write(2) is sent to the thread that wrote: blocking it here is enough.
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  size_t done = 0;
  int error = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (error == EPIPE && !was_pending) {
    // Take back the SIGPIPE this write raised, so that unblocking it delivers nothing.
    const timespec now = {0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (error != 0) errno = error;
  return error == 0;
}

}  // namespace trickbench
