#include "reports/cli.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "common/atomic_file.h"
#include "reports/compare.h"
#include "reports/html_printer.h"
#include "reports/load.h"
#include "reports/markdown_printer.h"
#include "reports/render.h"

namespace trickbench {
namespace reports {
namespace {

constexpr char kReportUsage[] = R"(usage: bazel run //reports:report -- RUN_DIR [--out_dir=DIR]

Merges a run-all folder (index.json and the per-trick result files it names) into
report.json (schema: reports/SCHEMA.md), report.md and report.html, written atomically
into DIR (default RUN_DIR). Exit status: 0 written, 2 bad input (nothing written), 1 write error.
)";

constexpr char kCompareUsage[] = R"(usage: bazel run //reports:compare -- OLD NEW [flags]

OLD and NEW are two report.json files or two per-trick result files (not one of each).
Prints, per benchmark, old vs new median time, the change with its 95% interval and
Mann-Whitney U p-value, the geometric mean, tricks on one side only, and a warning when
the environments differ (device, LibTorch, threads, BLAS, determinism).

  --md=PATH                  write Markdown to PATH (default: Markdown on stdout)
  --html=PATH                write a self-contained HTML page to PATH
  --fail_on_regression=PCT   exit 1 when a benchmark is significantly (p < 0.05, not
                             noisy) slower by more than PCT percent
Exit status: 0 done, 1 regression (with --fail_on_regression), 2 bad input (nothing written).
)";

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// `bazel run` starts binaries in their runfiles; relative paths mean the caller's folder.
std::string UserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd && *wd) {
    return (std::filesystem::path(wd) / path).string();
  }
  return path;
}

}  // namespace

bool WriteRunReport(const std::string& run_dir, std::vector<std::string>* paths,
                    std::string* error) {
  try {
    const Report report = MergeRun(run_dir);
    return WriteReportFiles(report, run_dir, paths, error);
  } catch (const results::InputError& e) {
    *error = e.what();
    return false;
  }
}

int ReportMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string run_dir, out_dir;
  for (const auto& a : args) {
    if (a == "--help") {
      out << kReportUsage;
      return 0;
    } else if (StartsWith(a, "--out_dir=")) {
      out_dir = UserPath(a.substr(10));
    } else if (StartsWith(a, "--")) {
      err << "report: unknown flag " << a << " (see --help)\n";
      return kExitBadInput;
    } else if (run_dir.empty()) {
      run_dir = UserPath(a);
    } else {
      err << "report: one RUN_DIR expected, got another: " << a << "\n";
      return kExitBadInput;
    }
  }
  if (run_dir.empty()) {
    err << kReportUsage;
    return kExitBadInput;
  }
  if (out_dir.empty()) out_dir = run_dir;
  Report report;
  try {
    report = MergeRun(run_dir);
  } catch (const results::InputError& e) {
    err << "report: " << e.what() << "\n";
    return kExitBadInput;
  }
  std::vector<std::string> paths;
  std::string error;
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    err << "report: cannot create --out_dir " << out_dir << ": " << ec.message() << "\n";
    return 1;
  }
  if (!WriteReportFiles(report, out_dir, &paths, &error)) {
    err << "report: " << error << "\n";
    return 1;
  }
  const ReportCounts n = Count(report);
  out << "report: " << n.tricks << " tricks: " << n.holds << " hold, " << n.does_not_hold
      << " do not hold here, " << n.inconclusive << " inconclusive, " << n.not_applicable
      << " not applicable (" << n.noisy << " noisy)\n";
  for (const auto& p : paths) out << "report: wrote " << p << "\n";
  return 0;
}

int CompareMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  std::string md_path, html_path;
  std::optional<double> fail_percent;
  for (const auto& a : args) {
    if (a == "--help") {
      out << kCompareUsage;
      return 0;
    } else if (StartsWith(a, "--md=")) {
      md_path = UserPath(a.substr(5));
    } else if (StartsWith(a, "--html=")) {
      html_path = UserPath(a.substr(7));
    } else if (StartsWith(a, "--fail_on_regression=")) {
      const std::string v = a.substr(21);
      char* end = nullptr;
      const double pct = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !std::isfinite(pct) || pct < 0) {
        err << "compare: bad value for --fail_on_regression: '" << v
            << "' (expected a percentage >= 0)\n";
        return kExitBadInput;
      }
      fail_percent = pct;
    } else if (StartsWith(a, "--")) {
      err << "compare: unknown flag " << a << " (see --help)\n";
      return kExitBadInput;
    } else {
      files.push_back(UserPath(a));
    }
  }
  if (files.size() != 2) {
    err << "compare: expected OLD and NEW, got " << files.size() << " file(s)\n" << kCompareUsage;
    return kExitBadInput;
  }
  Report old_report, new_report;
  try {
    std::string old_kind, new_kind;
    old_report = LoadReportOrResult(files[0], &old_kind);
    new_report = LoadReportOrResult(files[1], &new_kind);
    if (old_kind != new_kind) {
      throw results::InputError(files[1], "kind",
                       "a " + std::string(new_kind == "report" ? "report" : "per-trick result") +
                           ", but " + files[0] + " is a " +
                           (old_kind == "report" ? "report" : "per-trick result") +
                           "; compare two files of the same kind");
    }
  } catch (const results::InputError& e) {
    err << "compare: " << e.what() << "\n";
    return kExitBadInput;
  }
  const ReportDiff diff = CompareReports(old_report, new_report);
  const doc::Document document = DiffDocument(diff, fail_percent);
  const std::string md = doc::PrintMarkdown(document);
  std::string error;
  if (!md_path.empty() && !WriteFileAtomically(md_path, md, &error)) {
    err << "compare: " << error << "\n";
    return 1;
  }
  if (!html_path.empty() && !WriteFileAtomically(html_path, doc::PrintHtml(document), &error)) {
    err << "compare: " << error << "\n";
    return 1;
  }
  if (md_path.empty() && html_path.empty()) out << md;
  if (!md_path.empty()) out << "compare: wrote " << md_path << "\n";
  if (!html_path.empty()) out << "compare: wrote " << html_path << "\n";
  if (fail_percent && SignificantRegressions(diff, *fail_percent) > 0) {
    err << "compare: " << SignificantRegressions(diff, *fail_percent)
        << " significant regression(s) beyond " << *fail_percent << "%\n";
    return kExitRegression;
  }
  return 0;
}

}  // namespace reports
}  // namespace trickbench
