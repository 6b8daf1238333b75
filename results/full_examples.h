// Complete example files for the results tests: every field the writers can emit is
// set (both kinds of reproducibility case, a backend setting, a non-finite diff), so
// a round trip or a documentation check over them covers the whole format.
#pragma once

#include "results/result_file.h"
#include "results/run_index.h"

namespace trickbench {
namespace results {
namespace testing {

// status ok, two cases x two variants, three paired rounds each.
ResultFile FullResult();
// A run that was interrupted: every outcome once, interrupted_by and finished set.
RunIndex FullIndex();

}  // namespace testing
}  // namespace results
}  // namespace trickbench
