// Reports for compare's tests: a run's report written from a fixture, and a report
// made by hand with one timed setting per trick, for tests that need exact standard
// errors rather than simulated rounds.
//
//   const Report old_r = testing::HandMade({std::log(1.1)}, 0.01);  // t0: 1.1x +- 1 %
//   const std::string path = testing::ReportOf("run", "old");  // reports/testdata/run
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "reports/cli.h"
#include "reports/report.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace testing {

// The report.json of `run` (a fixture's name, or a folder a test wrote: an absolute
// path), written by `report` into a scratch folder `name`.
inline std::string ReportOf(const std::string& run, const std::string& name) {
  const std::string dir = ScratchDir(name);
  std::ostringstream out, err;
  const std::string folder = run[0] == '/' ? run : Fixture(run);
  EXPECT_EQ(ReportMain({folder, "--out_dir=" + dir}, out, err), 0) << err.str();
  return dir + "/report.json";
}

// A report made by hand: one timed setting per entry of `log_speedups`, each with the
// standard error `se` on 9 degrees of freedom (what CompareReports reads of an effect).
inline Report HandMade(const std::vector<double>& log_speedups, double se) {
  Report r;
  r.source = "hand";
  for (size_t i = 0; i < log_speedups.size(); ++i) {
    TrickReport t;
    t.id = "t" + std::to_string(i);
    t.outcome = results::RunOutcome::kOk;
    VariantEffect e;
    e.variant = "optimized";
    e.baseline = "baseline";
    e.timed = true;
    e.time.speedup = std::exp(log_speedups[i]);
    e.time.low = e.time.speedup * std::exp(-2.26 * se);
    e.time.high = e.time.speedup * std::exp(2.26 * se);
    e.time.log_se = se;
    e.time.dof = 9;
    e.time.processes = 10;
    e.time.rounds = 150;
    e.time.method = "bootstrap";
    e.time.within_sd = se;
    e.time.between_sd = se * std::sqrt(10.0);
    t.effects.push_back(e);
    r.tricks.push_back(t);
  }
  return r;
}

}  // namespace testing
}  // namespace reports
}  // namespace trickbench
