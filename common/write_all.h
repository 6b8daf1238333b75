// Writing a whole string to a file descriptor, where a reader that has gone is an
// error to handle, never a signal that ends the process.
//
//   if (!trickbench::WriteAll(fd, line + "\n")) {
//     // errno says why: EPIPE when the pipe's reader has closed it
//   }
//
// Why not write(2) alone: it may write part of the text, or be interrupted (EINTR),
// and on a pipe or socket whose reader has gone it raises SIGPIPE, whose default
// action kills the writer. run_all writes to its fork servers through pipes: a server
// killed by the OOM killer must leave run_all alive to record it. Ignoring SIGPIPE
// process-wide would do that too, but an ignored signal stays ignored across exec, so
// every program run_all starts would inherit it.
#pragma once

#include <string_view>

namespace trickbench {

// True once all of `text` is written. False with errno set on the first error other
// than EINTR (EPIPE: the reader has gone). SIGPIPE is blocked in the calling thread
// while it writes, and one raised by this write is taken back, so the process never
// sees it; a SIGPIPE already pending before the call stays pending.
bool WriteAll(int fd, std::string_view text);

}  // namespace trickbench
