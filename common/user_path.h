// A path the user typed on a command line, as they meant it. `bazel run` starts a binary
// in its runfiles tree, not in the folder the user ran bazel from, so a relative
// `--out_dir=myrun` would land inside bazel-out where nobody looks; Bazel names the
// user's folder in BUILD_WORKING_DIRECTORY, and relative paths are taken from there.
//
//   // bazel run //benches:run_all -- --out_dir=runs/today   (from /home/me/work)
//   trickbench::UserPath("runs/today");   // "/home/me/work/runs/today"
//   trickbench::UserPath("/tmp/x");       // "/tmp/x": absolute paths are left alone
//
// Outside `bazel run` (no BUILD_WORKING_DIRECTORY) a path is returned as given: the
// process's own folder is the user's. Only for paths the user gave: the binaries
// `bazel run` passes in `args` are relative to the runfiles and must stay so.
#ifndef TRICKBENCH_COMMON_USER_PATH_H_
#define TRICKBENCH_COMMON_USER_PATH_H_

#include <string>

namespace trickbench {

std::string UserPath(const std::string& path);

}  // namespace trickbench

#endif  // TRICKBENCH_COMMON_USER_PATH_H_
