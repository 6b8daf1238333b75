// Where one trick process's wall time went: the measuring part (the paired rounds) and
// everything around it. A trick binary records it in its result file
// (trickbench.phase_seconds); run_all copies it into the index entry of the process; the
// report sums it over the run ("in timed rounds: 41%").
//
//   results::PhaseSeconds p{.checks = 1.2, .reproducibility = 0.4, .rounds_setup = 0.9,
//                           .rounds = 1.5};
//   Json j = results::ToJson(p);                       // {"checks": 1.2, ...}
//   p = results::PhaseSecondsFromJson(fields, j, "trickbench.phase_seconds");
//   double start_and_exit = index_entry.seconds - p.Sum();
//
// Why it is recorded: a default run is worth the measurement it holds. Three quarters of
// a run that is set-up and checks is time no interval gets narrower for, and the split
// says where to cut.
#pragma once

#include <string>

#include "results/checked_json.h"

namespace trickbench {
namespace results {

// Seconds on the trick binary's steady clock. What no phase holds (the process's start,
// LibTorch's loading, writing the result file, the exit) is the index's wall time of the
// process less Sum().
struct PhaseSeconds {
  double checks = 0;           // RunChecks: equivalence, in effect, memory, counters
  double reproducibility = 0;  // the determinism check (process 1 of a run only)
  double rounds_setup = 0;     // the timed instances' set-up, warm-up and calibration
  double rounds = 0;           // the paired rounds themselves: the only part that measures

  double Sum() const { return checks + reproducibility + rounds_setup + rounds; }
  PhaseSeconds& operator+=(const PhaseSeconds& o);
};

// The one serialisation, for the result file and the index alike. The reader refuses a
// missing, non-numeric or negative phase, naming the field.
Json ToJson(const PhaseSeconds& phases);
PhaseSeconds PhaseSecondsFromJson(const Fields& f, const Json& j, const std::string& path);

}  // namespace results
}  // namespace trickbench
