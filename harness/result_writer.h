// What a trick binary writes: its run as the measurement record (results/result_file.h
// owns the format; reports/SCHEMA.md section 1 documents it) and, beside it, Google
// Benchmark's JSON printed from it (results/gbench_export.h), each written atomically.
//
//   results::ResultFile file = NewResultFile(def, opts, device, timing, context, argv[0]);
//   file.trickbench.status = results::ResultStatus::kInvalid;
//   file.trickbench.reason = checks.reason;
//   file.trickbench.checks = checks.cases;
//   if (!WriteResult(out_path, file)) return results::kExitError;
//
// Every status has the same shape: a skipped or invalid trick has no rounds and the
// same context and trickbench fields as a measured one.
#pragma once

#include <string>
#include <vector>

#include "harness/checks.h"
#include "harness/context.h"
#include "harness/options.h"
#include "harness/timing.h"
#include "harness/trick.h"
#include "results/result_file.h"

namespace trickbench {

// A result with the trick's description, the run's settings and `context` (plus the
// executable and the local time, as Google Benchmark writes them), no benchmarks, and
// status error with no reason: the caller sets what the run found.
results::ResultFile NewResultFile(const TrickDef& def, const RunOptions& opts,
                                  const torch::Device& device, const TimingBackend& timing,
                                  const Context& context, const std::string& executable);

// Writes `file` to `path` and its Google Benchmark export beside it
// (results::GoogleBenchmarkExportPath), each atomically, and says so on stdout; on
// failure says why on stderr.
bool WriteResult(const std::string& path, const results::ResultFile& file);

}  // namespace trickbench
