// What a trick binary writes: its run as a results::ResultFile (results/result_file.h
// owns the format; reports/SCHEMA.md section 1 documents it), written atomically.
//
//   results::ResultFile file = NewResultFile(def, opts, device, timing, context, argv[0]);
//   file.trickbench.status = results::ResultStatus::kInvalid;
//   file.trickbench.reason = checks.reason;
//   file.trickbench.checks = ChecksRecord(def, checks);
//   if (!WriteResult(out_path, file)) return results::kExitError;
//
// Every status has the same shape: a skipped or invalid trick has an empty benchmark
// list and the same context and trickbench fields as a measured one.
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

// The checks as the result file records them, each variant with its benchmark's name.
std::vector<results::CaseChecks> ChecksRecord(const TrickDef& def, const CheckReport& checks);

// Writes `file` atomically and says so on stdout; on failure says why on stderr.
bool WriteResult(const std::string& path, const results::ResultFile& file);

// The status of a timed run from Google Benchmark's entries: error (with the first
// failed benchmark and its message) when one failed or none ran, else ok.
results::ResultStatus TimedStatus(const results::Json& benchmarks, std::string* reason);

}  // namespace trickbench
