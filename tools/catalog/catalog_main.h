// The catalog program's main, for the binary benches/defs.bzl generates: that binary
// links every trick library and passes the trick source files the build globbed.
//
//   int main(int argc, char** argv) {
//     return trickbench::catalog::CatalogMain(argc, argv, {"benches/avoid_host_sync.cc"});
//   }
//
//   bazel run //benches:catalog                                   # the page to stdout
//   bazel run //benches:catalog -- --out=docs/CATALOG.md          # regenerate it
//   bazel run //benches:catalog -- --check=docs/CATALOG.md        # what catalog_test runs
//
// Relative paths resolve against the workspace under `bazel run`
// (BUILD_WORKSPACE_DIRECTORY), else against the working directory.
// Exit status: 0 done (or up to date), 1 stale page, incomplete registration or I/O
// error (nothing written), 2 bad command line.
#pragma once

#include <string>
#include <vector>

namespace trickbench::catalog {

int CatalogMain(int argc, char** argv, const std::vector<std::string>& sources);

}  // namespace trickbench::catalog
