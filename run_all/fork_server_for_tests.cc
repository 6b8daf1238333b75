// A fork server (harness/fork_server.h) for child_test: `fork_server_for_tests --serve`
// serves as a trick binary would, and each child runs `/bin/sh -c ARG` with the one
// argument of its request, so the supervision tests run the same scripts both ways.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "harness/fork_server.h"

int main(int argc, char** argv) {
  if (argc != 2 || std::strcmp(argv[1], "--serve") != 0) {
    std::fprintf(stderr, "usage: fork_server_for_tests --serve\n");
    return 2;
  }
  return trickbench::ServeForks(0, 1, argv[0], [](int child_argc, char** child_argv) {
    if (child_argc != 2) return 2;
    execl("/bin/sh", "sh", "-c", child_argv[1], static_cast<char*>(nullptr));
    return 127;
  });
}
