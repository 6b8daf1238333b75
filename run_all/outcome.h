// What run_all records for one trick: its index entry, from how the process ended
// (child.h) and the result file it left.
//
//   const ChildExit e = RunInGroup(...);
//   results::IndexEntry entry = Classify("no_grad_inference", /*process=*/2, e, dir,
//                                        /*timeout=*/300);   // reads no_grad_inference.p2.json
//
// run_all saw the process, so it outranks the result file: a trick that wrote "ok"
// and then crashed is crashed; a result file is only believed together with the exit
// status that goes with it (0 for ok/skipped/checked, 3 for invalid).
#pragma once

#include <string>

#include "results/run_index.h"
#include "run_all/child.h"

namespace trickbench {
namespace run_all {

// The name of process `process`'s files without the extension: "<id>.p<process>".
std::string FileStem(const std::string& id, int process);

// `dir` holds FileStem(id, process) + ".json" (if the trick wrote one) and + ".log";
// `timeout_seconds` is the limit the process ran under (for the reason of a timeout).
results::IndexEntry Classify(const std::string& id, int process, const ChildExit& exit,
                             const std::string& dir, double timeout_seconds);

// The last `n` non-empty lines of a file, joined with " | " ("" when unreadable).
std::string LastLines(const std::string& path, int n);

}  // namespace run_all
}  // namespace trickbench
