// Running a command in tests and capturing what it printed, as a user's shell would.
//
//   const trickbench::subprocess::Proc p = trickbench::subprocess::RunCommand(binary + " --help");
//   EXPECT_EQ(p.exit_code, 0);
//   EXPECT_NE(p.output.find("usage"), std::string::npos);
#pragma once

#include <string>

namespace trickbench::subprocess {

struct Proc {
  int exit_code = -1;  // 128 + signal number when killed by a signal
  std::string output;
};

enum class Stderr { kToTestLog, kCaptured };

// Runs `command` through /bin/sh; stdout is captured, stderr too with kCaptured.
Proc RunCommand(const std::string& command, Stderr stderr_mode = Stderr::kCaptured);

}  // namespace trickbench::subprocess
