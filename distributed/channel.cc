#include "distributed/channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trickbench::distributed {
namespace {

// Frames larger than this are a corrupt length, not a message (parameters of the
// benchmark's models are megabytes).
constexpr uint64_t kMaxPayload = uint64_t{1} << 32;

bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = send(fd, data, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// 1: read all, 0: clean end of stream before any byte, -1: error or torn frame.
int ReadAll(int fd, char* data, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd, data + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return got == 0 ? 0 : -1;
    got += static_cast<size_t>(r);
  }
  return 1;
}

}  // namespace

bool SendFrame(int fd, FrameKind kind, const std::vector<char>& payload) {
  char header[9];
  header[0] = static_cast<char>(kind);
  const uint64_t n = payload.size();
  std::memcpy(header + 1, &n, sizeof n);
  return WriteAll(fd, header, sizeof header) && WriteAll(fd, payload.data(), payload.size());
}

ReceiveStatus ReceiveFrame(int fd, Frame* frame) {
  char header[9];
  const int h = ReadAll(fd, header, sizeof header);
  if (h == 0) return ReceiveStatus::kClosed;
  if (h < 0) return ReceiveStatus::kMalformed;
  const char kind = header[0];
  if (kind != 'Q' && kind != 'X' && kind != 'R' && kind != 'E') return ReceiveStatus::kMalformed;
  uint64_t n = 0;
  std::memcpy(&n, header + 1, sizeof n);
  if (n > kMaxPayload) return ReceiveStatus::kMalformed;
  frame->kind = static_cast<FrameKind>(kind);
  frame->payload.resize(n);
  if (n > 0 && ReadAll(fd, frame->payload.data(), n) != 1) return ReceiveStatus::kMalformed;
  return ReceiveStatus::kOk;
}

}  // namespace trickbench::distributed
