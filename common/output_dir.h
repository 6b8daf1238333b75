// Where runs write what they measure when no flag names a place: one folder that holds no
// source, so a run never writes beside the code and git ignores it by a rule (`/runs/` in
// .gitignore) that matches nothing else.
//
//   const std::string root = trickbench::RunsRoot();          // e.g. /work/repo/runs
//   const std::string dir = root + "/run-" + trickbench::UtcStamp();
//
// The root is, in order: $TRICKBENCH_RUNS_DIR; <workspace>/runs under `bazel run` (Bazel
// sets BUILD_WORKSPACE_DIRECTORY to the source tree and runs the binary elsewhere); ./runs.
// Nothing is created here: the caller makes what it writes into.
#ifndef TRICKBENCH_COMMON_OUTPUT_DIR_H_
#define TRICKBENCH_COMMON_OUTPUT_DIR_H_

#include <string>

namespace trickbench {

// The environment variable that moves every default output folder.
inline constexpr const char kRunsDirEnv[] = "TRICKBENCH_RUNS_DIR";

// The folder default outputs go under (see the top of this file).
std::string RunsRoot();

// The current UTC time as text, by strftime's `format`; the default names run folders
// (20261201-193500: sorts by time, no characters a shell or file system minds).
std::string UtcStamp(const char* format = "%Y%m%d-%H%M%S");

}  // namespace trickbench

#endif  // TRICKBENCH_COMMON_OUTPUT_DIR_H_
