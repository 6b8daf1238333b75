// Comparing two reports (or two per-trick result files): per benchmark, old vs new
// median time with its change, a Mann-Whitney U test and an interval; the geometric
// mean of the changes; tricks on one side only; and warnings when the environments
// differ in ways that make the numbers incomparable.
//
//   const ReportDiff diff = CompareReports(LoadReportOrResult("old.json"),   // load.h
//                                          LoadReportOrResult("new.json"));
//   std::cout << doc::PrintMarkdown(DiffDocument(diff, /*fail_percent=*/10.0));
//   if (SignificantRegressions(diff, 10.0) > 0) return 1;   // --fail_on_regression=10
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/document.h"
#include "reports/report.h"

namespace trickbench {
namespace reports {

// One benchmark (a variant of a case of a trick) in both reports: how its time changed.
struct BenchmarkChange {
  std::string trick, case_name, variant;
  bool baseline = false;
  double old_median = 0, new_median = 0;
  double ratio = 0, ci_low = 0, ci_high = 0;  // new / old median time, with its 95 % interval
  double p_value = 1;
  bool significant = false, noisy = false;
  int old_n = 0, new_n = 0;
};

struct SpeedupChange {  // a trick's speedup over its baseline, old and new
  std::string trick, case_name, variant;
  double old_speedup = 0, new_speedup = 0;
  std::string old_verdict, new_verdict;
};

struct EnvDifference {
  std::string key, old_value, new_value;
  bool incomparable = false;  // device, LibTorch, threads, BLAS, determinism, CUDA
};

// What changed between two reports (old -> new): per benchmark and per trick's speedup,
// what could not be compared, and how the environments differ.
struct ReportDiff {
  std::string old_source, new_source;
  std::vector<BenchmarkChange> changes;
  std::vector<SpeedupChange> speedups;
  std::vector<std::string> only_old, only_new;
  std::vector<std::string> not_compared;  // "id: old outcome -> new outcome"
  std::vector<EnvDifference> environment;
  std::optional<double> geomean_ratio;  // geometric mean of new/old over all changes
};

ReportDiff CompareReports(const Report& old_report, const Report& new_report);

// Changes slower by more than `percent` % with p < alpha and neither side noisy.
int SignificantRegressions(const ReportDiff& diff, double percent);

// The comparison as a document; with `fail_percent` it states the CI check's result.
doc::Document DiffDocument(const ReportDiff& diff, std::optional<double> fail_percent);

// Keys whose difference makes old and new numbers incomparable.
const std::vector<std::string>& IncomparableEnvironmentKeys();

}  // namespace reports
}  // namespace trickbench
