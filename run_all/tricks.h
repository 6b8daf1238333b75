// Which trick binaries a run_all run runs: those the command line names (`bazel run`
// passes every one), else the ones bound to this run_all (its runfiles, or benches/
// beside a CMake build's run_all), or for --ab those both build folders have; then
// --only and --skip.
//
//   std::vector<std::string> ids;
//   if (!ChooseTricks(&options, &ids, &error)) ...  // "unknown trick 'x' (known: ...)"
//   // options.binaries now holds the binaries (found ones too), ids the run's tricks
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "run_all/options.h"

namespace trickbench {
namespace run_all {

// A trick's id: its binary's file name.
std::string TrickId(const std::string& binary);

bool IsExecutableFile(const std::filesystem::path& p);

// The run's trick ids in order; fills o->binaries when none was given and some are
// bound to this run_all. False with *error (a usage error) otherwise.
bool ChooseTricks(Options* o, std::vector<std::string>* ids, std::string* error);

}  // namespace run_all
}  // namespace trickbench
