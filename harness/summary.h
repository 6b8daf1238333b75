// The console summary a trick binary prints after a measured run: per non-baseline
// variant the speed ratio of medians and the peak memory change, then whether the
// reproduced variant was bitwise reproducible.
//
//   PrintSummary(std::cout, result_file, *timing);
//   // no_grad_inference: less memory and time
//   //   no_grad vs grad_mode: 1.38x speed (median), peak CPU memory 1048576 -> 524288 bytes (-50.00%)
//   //   reproducible under the deterministic guard (no_grad): bitwise
//
// A quick look only: intervals, noise and verdicts need every repetition and come from
// reports/ (run_all writes them).
#pragma once

#include <ostream>

#include "harness/timing.h"
#include "results/result_file.h"

namespace trickbench {

void PrintSummary(std::ostream& out, const results::ResultFile& result, const TimingBackend& timing);

}  // namespace trickbench
