// The control channel between a benchmark process and its rank 0: framed messages
// over a Unix socket pair (a socket, not a pipe, so a write to a dead peer fails with
// EPIPE instead of killing the writer with SIGPIPE).
//
//   SendFrame(fd, FrameKind::kRequest, Pickle(request));
//   Frame reply;
//   if (ReceiveFrame(fd, &reply) == ReceiveStatus::kOk) Use(Unpickle(reply.payload));
//
// Internal to distributed/: rank_group.cc (benchmark side) and rank_main.cc (rank side).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trickbench::distributed {

enum class FrameKind : char {
  kRequest = 'Q',  // benchmark -> rank 0: a pickled request for every rank
  kQuit = 'X',     // benchmark -> rank 0: the group ends
  kReply = 'R',    // rank 0 -> benchmark: the pickled reply
  kError = 'E',    // rank 0 -> benchmark: a handler failed; payload is the message
};

struct Frame {
  FrameKind kind = FrameKind::kReply;
  std::vector<char> payload;
};

// False when the peer is gone (EPIPE, ECONNRESET) or the fd is bad.
bool SendFrame(int fd, FrameKind kind, const std::vector<char>& payload);

enum class ReceiveStatus { kOk, kClosed, kMalformed };
// Blocks until one whole frame is read. kClosed: end of stream before a frame.
ReceiveStatus ReceiveFrame(int fd, Frame* frame);

}  // namespace trickbench::distributed
