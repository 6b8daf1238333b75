#include "harness/testing/subprocess.h"

#include <sys/wait.h>

#include <cstdio>

namespace trickbench::subprocess {

Proc RunCommand(const std::string& command, Stderr stderr_mode) {
  Proc p;
  const std::string cmd = stderr_mode == Stderr::kCaptured ? command + " 2>&1" : command;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return p;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) p.output.append(buf, n);
  const int status = pclose(pipe);
  p.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return p;
}

}  // namespace trickbench::subprocess
