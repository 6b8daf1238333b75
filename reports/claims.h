// What a trick's claim says, as the report reads and grades it: which metrics a claim in
// words is about, how a claimed effect reads, and the speedups a time claim states.
//
//   results::Expectation e{.metric = "time", .low = 1.3, .high = 4};
//   ClaimedText(e);                 // "1.30-4.00x faster"
//   ClaimedSpeedups(e);             // {1.3, 4}: drawn beside the measured interval
//   ClaimFromWords("saves memory"); // {{.metric = "memory"}}: no figures
#pragma once

#include <string>
#include <vector>

#include "results/result_file.h"

namespace trickbench {
namespace reports {

// Which parts of a claim a verdict judges (see SCHEMA.md "Claims"): memory when the
// claim speaks of memory or size, time when it speaks of speed or time, or when it
// names neither; a claim that expects a slowdown is not judged on time.
void ClassifyClaim(const std::string& claim, bool* time, bool* memory);
// The expectations of a claim with no recorded ones (files before schema 2 recorded
// them): from ClassifyClaim, no figures, no device.
std::vector<results::Expectation> ClaimFromWords(const std::string& claim);
// How a claimed effect reads: "1.30-4.00x faster on cuda", "37% less peak memory".
std::string ClaimedText(const results::Expectation& e);
// The speedups (baseline / variant time) a time claim states, read as the grading rules
// read it (SCHEMA.md section 5: no claimed figure means beyond the no-effect band; a
// cost is the inverse factor): [low, high], 0 and infinity as open ends. Drawn beside
// the measured interval. (A speedup above a claimed upper end still holds.)
struct SpeedupRange {
  double low = 0, high = 0;
};
SpeedupRange ClaimedSpeedups(const results::Expectation& time_claim);
// The smallest factor (baseline / variant, inverted for a cost) at which a claim holds:
// its claimed low figure, and never less than the no-effect band's edge. The grading and
// ClaimedSpeedups read a claim through this one rule.
double ClaimedFactorFloor(const results::Expectation& e);

// "1.30-4.00x", ">= 1.30x", "2.00x" (low == high); "" without a figure.
std::string FactorRange(double low, double high);

}  // namespace reports
}  // namespace trickbench
