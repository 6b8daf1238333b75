// A run's environment from its result files' contexts, and what disagrees.
//
// run_all hands every trick process one environment, so within a run a trick whose every
// process records the same value that the other tricks do not (deterministic_algorithms
// sets CUBLAS_WORKSPACE_CONFIG before main, so its determinism flags differ) changed it
// itself: that is said in the trick's own notes, not as a warning about the run. What
// the run warns about is a difference between the processes of one trick (the machine or
// the build changed under the run). A key a file does not record (a skipped trick
// records less) is missing, not different.
//
//   std::vector<FileEnvironment> files = {{"alpha", 1, Environment(alpha_p1)}, ...};
//   ReconcileEnvironments(files, &report);  // report.environment, environment_notes and
//                                           // each trick's process_notes
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/report.h"

namespace trickbench {
namespace reports {

struct FileEnvironment {
  std::string trick;
  int process = 0;                                 // 1-based; 0 for a trick run alone
  std::map<std::string, std::string> environment;  // results::Environment of the file
};

// Sets report->environment to the run's value of each key (the one most tricks
// recorded, each trick voting with its first file; a tie goes to the earlier trick), adds
// a note to report->environment_notes for each file of a trick whose processes disagree
// (one per value, naming its processes), and to the trick's process_notes for a value
// all of a trick's files share and the run does not. `report->tricks` holds the tricks
// already; a file of a trick not among them only votes.
void ReconcileEnvironments(const std::vector<FileEnvironment>& files, Report* report);

}  // namespace reports
}  // namespace trickbench
