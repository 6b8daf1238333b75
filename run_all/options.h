// run_all's command line: the trick binaries (Bazel passes them first, see
// benches/BUILD), run_all's own flags, and the flags it forwards to every trick.
//
//   run_all::Options o;
//   std::string error;
//   if (!run_all::ParseOptions({"bench/a", "--timeout=60", "--threads=2"}, &o, &error)) ...
//   // o.binaries == {"bench/a"}, o.timeout == 60, o.forward == {"--threads=2"}
//
// Forwarded values are checked by the trick binaries themselves (run_all asks the
// first one before it starts, see run.h): the trick's options are the one definition
// of what --threads or --device accept.
#pragma once

#include <string>
#include <vector>

namespace trickbench {
namespace run_all {

struct Options {
  std::vector<std::string> binaries;  // trick binaries; the id is the file name
  std::string out_dir;                // "" = results/run-<UTC time>
  double timeout = 300;               // seconds per trick
  std::vector<std::string> only, skip;
  bool list = false;
  bool help = false;
  std::vector<std::string> forward;  // for every trick binary, verbatim, in order
};

// False with one line in *error (without the "run_all: " prefix) on a bad command line.
bool ParseOptions(const std::vector<std::string>& args, Options* options, std::string* error);

// The --help text.
std::string Usage();

}  // namespace run_all
}  // namespace trickbench
