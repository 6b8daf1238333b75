// The main() of a trick binary: harness/main.cc is `return trickbench::TrickMain(argc,
// argv);`. It wires the parts together, each in its own file:
//
//   options.h        the command line (flags, --help)
//   timing.h         the timing backend, chosen once for the device
//   checks.h         equivalence, active and memory checks; reproducibility
//   rounds.h         the timed, paired rounds
//   result_writer.h  the record (results/result_file.h) and its Google Benchmark export
//   summary.h        the console summary
//
//   bazel run //benches:no_grad_inference -- --threads=2 --rounds=15 --out=/tmp/n.json
//
// Exit status (results/status.h): 0 measured, checked or skipped (needs CUDA, none
// here), 2 bad command line, 3 invalid (a check failed: no speedup is reported), 1
// anything else.
#pragma once

#include <c10/core/Device.h>

#include <string>

namespace trickbench {

// Resolves --device: "auto" is cuda when available, else cpu. False with *error set
// when "cuda" is asked for and absent.
bool ResolveDevice(const std::string& flag, c10::Device* device, std::string* error);

int TrickMain(int argc, char** argv);

}  // namespace trickbench
