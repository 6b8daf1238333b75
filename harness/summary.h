// The console summary a trick binary prints after a measured run: per non-baseline
// variant its speedup and the peak memory change, then whether the reproduced variant
// was bitwise reproducible.
//
//   PrintSummary(std::cout, result_file, *timing);
//   // no_grad_inference: less memory and time
//   //   no_grad vs grad_mode: 1.38x speed (median of 8 paired rounds), peak CPU memory ...
//   //   reproducible under the deterministic guard (no_grad): bitwise
//
// The speedup is the report's estimator for this one process (stats::EstimateSpeedup:
// the median of the rounds' baseline/variant log ratios), read from the typed rounds,
// so a trick run alone and its run_all report agree when run_all has one process. A
// quick look only: intervals over processes and verdicts come from reports/.
#pragma once

#include <ostream>

#include "harness/timing.h"
#include "results/result_file.h"

namespace trickbench {

void PrintSummary(std::ostream& out, const results::ResultFile& result,
                  const TimingBackend& timing);

}  // namespace trickbench
