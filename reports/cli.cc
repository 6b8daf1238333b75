#include "reports/cli.h"

#include <filesystem>
#include <optional>

#include "common/atomic_file.h"
#include "common/flags.h"
#include "common/user_path.h"
#include "reports/compare.h"
#include "reports/compare_render.h"
#include "reports/html_printer.h"
#include "reports/load.h"
#include "reports/markdown_printer.h"
#include "reports/render.h"
#include "reports/session_parts.h"

namespace trickbench {
namespace reports {
namespace {

// The usage texts; the flag lists come from the parser (Flags::Help).
constexpr char kReportUsage[] = R"(usage: bazel run //reports:report -- RUN_DIR [flags]

Merges a run-all folder (index.json and the per-trick result files it names) into
report.json (schema: reports/SCHEMA.md), report.md and report.html, written atomically
into --out_dir (default RUN_DIR). Exit status: 0 written, 2 bad input (nothing written),
1 write error.

)";

constexpr char kCompareUsage[] = R"(usage: bazel run //reports:compare -- OLD NEW [flags]

OLD and NEW are two report.json files or two per-trick result files (not one of each).
Per setting, the change of its speedup over its baseline (new/old, interval, p), with
Holm's correction over all settings and one of four outcomes: faster or slower (corrected
p < --alpha and beyond --min_effect), unchanged (two one-sided tests at --alpha: the
90 % interval inside +-min_effect), unknown (with the processes and rounds that would
settle it). Absolute times are tested only
when OLD and NEW are old/report.json and new/report.json of one A/B session (run_all
--ab), over the pairs of processes; otherwise shown, not tested. Warns when the
environments (device, LibTorch, threads, BLAS, determinism) or the machine's state
(load, steal, preemptions) differ. Where both reports recorded the speed probe (every
sample since it was added) and a setting has at least 8 processes over both runs (3 in
each), both sides are read at one machine speed first: the process values regressed,
with one slope, on how fast the machine ran in each process, and the new run read at
the old run's mean probe time (column "read at"); what the VM's speed spells do to a
speedup is then out of the test. A setting the two runs timed with other iterations
per sample (each run's processes time its process 1's counts) is never called faster
or slower (unknown instead; unchanged stands), and is named: to compare it like for
like, time the new build with the old run's counts (run_all
--iterations_from=OLD_RUN_DIR; in one --ab session the build that ran
second already did, wherever the trick's variants and cases match). With
--noise=noise_study.json (run_all:noise_study on
this machine), each setting the study measured has its between-session sd added to both
sides before the test: two runs differ by two draws of what all processes of a run share,
which no interval over one run holds; without it such settings raise false alarms beyond
--alpha. Exit status: 0 done, 1 regression (with --fail_on_regression), 2 bad input
(nothing written).

)";

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
  std::string out_dir;
  bool help = false;
  std::vector<std::string> positional;
  Flags flags("report");
  flags.String("out_dir", &out_dir, "write the report files here (default: RUN_DIR)")
      .Bool("help", &help, "this text")
      .Positional(&positional);
  std::string error;
  if (!flags.Parse(args, &error)) {
    err << "report: " << error << "\n";
    return kExitBadInput;
  }
  if (help) {
    out << kReportUsage << flags.Help();
    return 0;
  }
  if (positional.size() > 1) {
    err << "report: one RUN_DIR expected, got another: " << positional[1] << "\n";
    return kExitBadInput;
  }
  if (positional.empty()) {
    err << kReportUsage << flags.Help();
    return kExitBadInput;
  }
  const std::string run_dir = UserPath(positional[0]);
  out_dir = out_dir.empty() ? run_dir : UserPath(out_dir);
  Report report;
  try {
    report = MergeRun(run_dir);
  } catch (const results::InputError& e) {
    err << "report: " << e.what() << "\n";
    return kExitBadInput;
  }
  std::vector<std::string> paths;
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
  out << "report: " << n.tricks << " tricks: " << n.holds << " hold, " << n.partly
      << " hold in part, " << n.does_not_hold << " do not hold here, " << n.inconclusive
      << " inconclusive, " << n.not_applicable << " not applicable; " << n.imprecise << " of "
      << n.settings << " timed settings imprecise\n";
  for (const auto& p : paths) out << "report: wrote " << p << "\n";
  return 0;
}

int CompareMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string md_path, html_path, alpha_text, noise_path;
  double fail_percent_value = 0, min_effect_percent = 5;
  bool help = false;
  std::vector<std::string> files;
  Flags flags("compare");
  flags.String("md", &md_path, "write Markdown to this file (default: Markdown on stdout)")
      .String("html", &html_path, "write a self-contained HTML page to this file")
      .Percent("fail_on_regression", &fail_percent_value,
               "exit 1 when a setting's speedup (or, in an A/B session, a benchmark's\n"
               "time) has the outcome slower and is worse by more than PCT percent")
      .String("alpha", &alpha_text, "level of the Holm-corrected tests, in (0, 1) (default 0.05)")
      .Percent("min_effect", &min_effect_percent,
               "changes within +-PCT percent are not worth a verdict (default 5)")
      .String("noise", &noise_path,
              "a noise study of this machine (its noise_study.json): add each measured\n"
              "setting's between-session sd to both sides")
      .Bool("help", &help, "this text")
      .Positional(&files);
  std::string error;
  if (!flags.Parse(args, &error)) {
    err << "compare: " << error << "\n";
    return kExitBadInput;
  }
  if (help) {
    out << kCompareUsage << flags.Help();
    return 0;
  }
  stats::DecisionRule rule;
  rule.min_effect = min_effect_percent / 100;
  if (flags.Given("alpha")) {
    char* end = nullptr;
    rule.alpha = std::strtod(alpha_text.c_str(), &end);
    if (*end != '\0' || !(rule.alpha > 0 && rule.alpha < 1)) {
      err << "compare: bad value for --alpha: '" << alpha_text
          << "' (expected a level in (0, 1), e.g. 0.05)\n";
      return kExitBadInput;
    }
  }
  if (!md_path.empty()) md_path = UserPath(md_path);
  if (!html_path.empty()) html_path = UserPath(html_path);
  for (auto& f : files) f = UserPath(f);
  if (!noise_path.empty()) noise_path = UserPath(noise_path);
  const std::optional<double> fail_percent =
      flags.Given("fail_on_regression") ? std::optional<double>(fail_percent_value) : std::nullopt;
  if (files.size() != 2) {
    err << "compare: expected OLD and NEW, got " << files.size() << " file(s)\n"
        << kCompareUsage << flags.Help();
    return kExitBadInput;
  }
  Report old_report, new_report;
  std::optional<SessionParts> parts;
  try {
    std::string old_kind, new_kind;
    old_report = LoadReportOrResult(files[0], &old_kind);
    new_report = LoadReportOrResult(files[1], &new_kind);
    if (old_kind != new_kind) {
      throw results::InputError(
          files[1], "kind",
          "a " + std::string(new_kind == "report" ? "report" : "per-trick result") + ", but " +
              files[0] + " is a " + (old_kind == "report" ? "report" : "per-trick result") +
              "; compare two files of the same kind");
    }
    if (flags.Given("noise")) parts = LoadSessionParts(noise_path);
  } catch (const results::InputError& e) {
    err << "compare: " << e.what() << "\n";
    return kExitBadInput;
  }
  const ReportDiff diff = CompareReports(old_report, new_report, rule, parts ? &*parts : nullptr);
  const doc::Document document = DiffDocument(diff, fail_percent);
  const std::string md = doc::PrintMarkdown(document);
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
  if (fail_percent && Regressions(diff, *fail_percent) > 0) {
    err << "compare: " << Regressions(diff, *fail_percent) << " regression(s) beyond "
        << *fail_percent << "% (outcome slower after Holm's correction)\n";
    return kExitRegression;
  }
  return 0;
}

}  // namespace reports
}  // namespace trickbench
