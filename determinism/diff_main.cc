// bazel run //determinism:diff -- A.json B.json [--rtol=R --atol=A] [--from_step=K] [--audit]
//
// Compares two trace files (trace_file.h, written by TraceRecorder): exit 0 when they
// are bitwise equal (or, with a tolerance, every difference is within it), 1 when the
// runs diverged, 2 on bad input (usage, a missing or malformed file, traces of two
// different trainings), with the file and the field named.
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "common/flags.h"
#include "determinism/trace_diff.h"
#include "determinism/trace_file.h"
#include "results/checked_json.h"

namespace {

constexpr char kUsage[] =
    "usage: diff A.json B.json [flags]\n"
    "Compares two reproducibility traces (written by trickbench::TraceRecorder): the first\n"
    "divergent step and tensor, whether the differences stay within a tolerance, and how\n"
    "the two runs' environments and determinism settings differ. --from_step=K compares\n"
    "the steps from K on only: a run resumed after step K-1 against the uninterrupted run.\n"
    "Exit status: 0 bitwise equal (with --rtol/--atol: every difference within them),\n"
    "1 diverged, 2 bad input.\n\n";

// A tolerance flag's text as a finite number >= 0.
bool ParseTolerance(const std::string& flag, const std::string& text, double* out,
                    std::string* error) {
  if (text.empty()) return true;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno != 0 || !(v >= 0) || v > 1e300) {
    *error = "--" + flag + "=" + text + ": expected a finite number >= 0";
    return false;
  }
  *out = v;
  return true;
}

void PrintAudit(const std::string& name, const trickbench::TraceFile& f) {
  std::cout << "\naudit of " << name << " (at its first recorded step):\n";
  if (f.audit.empty()) {
    std::cout << "  (none recorded)\n";
    return;
  }
  std::cout << trickbench::FormatAudit(f.audit);
}

std::string Summary(const std::string& name, const trickbench::TraceFile& f) {
  std::string s = name + ": " + std::to_string(f.trace.steps().size()) + " steps, seed " +
                  std::to_string(f.seed);
  if (!f.label.empty()) s += ", \"" + f.label + "\"";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string rtol_text, atol_text;
  bool audit = false, help = false;
  int from_step = -1;
  std::vector<std::string> files;
  trickbench::Flags flags("diff");
  flags.String("rtol", &rtol_text, "relative elementwise tolerance, checked on sum and L2 norm")
      .String("atol", &atol_text, "absolute elementwise tolerance, checked on sum and L2 norm")
      .Int("from_step", &from_step, -1, 1 << 30,
           "compare the steps from this one on only (a resumed run); -1: every step")
      .Bool("audit", &audit, "also print each run's determinism audit")
      .Bool("help", &help, "this text")
      .Positional(&files);
  std::string error;
  trickbench::TraceDiffOptions options;
  if (!flags.Parse(std::vector<std::string>(argv + 1, argv + argc), &error) ||
      !ParseTolerance("rtol", rtol_text, &options.rtol, &error) ||
      !ParseTolerance("atol", atol_text, &options.atol, &error)) {
    std::cerr << "diff: " << error << "\n";
    return 2;
  }
  if (help) {
    std::cout << kUsage << flags.Help();
    return 0;
  }
  if (from_step >= 0) options.from_step = from_step;
  if (files.size() != 2) {
    std::cerr << "diff: expected two trace files, got " << files.size() << " (--help)\n";
    return 2;
  }
  try {
    const trickbench::TraceFile a = trickbench::ReadTraceFile(files[0]);
    const trickbench::TraceFile b = trickbench::ReadTraceFile(files[1]);
    const trickbench::TraceDiff d = trickbench::DiffTraces(a, b, options, files[0], files[1]);
    std::cout << Summary(files[0], a) << "\n" << Summary(files[1], b) << "\n";
    std::cout << d.Describe(files[0], files[1]);
    if (audit) {
      PrintAudit(files[0], a);
      PrintAudit(files[1], b);
    }
    return d.ExitCode();
  } catch (const trickbench::results::InputError& e) {
    std::cerr << "diff: " << e.what() << "\n";
    return 2;
  }
}
