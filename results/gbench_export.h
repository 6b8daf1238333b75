// Google Benchmark's JSON, printed from the measurement record: an export written beside
// every record (<id>.gbench.json next to <id>.json), so that Google Benchmark's own tools
// (compare.py) read trickbench's timings. Nothing of trickbench reads it back.
//
//   const results::ResultFile record = results::ReadResultFile("runs/channels_last.json");
//   std::string error;
//   if (!results::WriteGoogleBenchmarkExport(
//           results::GoogleBenchmarkExportPath("runs/channels_last.json"), record, &error)) ...
//   // compare.py benchmarks runs/a/channels_last.gbench.json runs/b/channels_last.gbench.json
//
// Each paired-round sample is one run_type "iteration" entry named BM_<id>[/<case>]/<variant>
// (its repetition_index the round), then mean, median, stddev and cv aggregates; each
// entry carries the variant's check figures as counters (peak_bytes, run_peak_bytes,
// allocations_per_run, the trick's counters, and items_per_second when the trick names
// its items per run). A record whose status is not ok exports no timings; an error one
// exports a single entry with error_occurred, as Google Benchmark writes a failed
// benchmark.
#pragma once

#include <string>

#include "results/checked_json.h"
#include "results/result_file.h"

namespace trickbench {
namespace results {

// BM_<id>[/<case>]/<variant>: how the export, NVTX ranges and profiles name a setting.
std::string GoogleBenchmarkName(const std::string& trick_id, const std::string& case_name,
                                const std::string& variant);

// {"context": ..., "benchmarks": [...]}, as Google Benchmark's --benchmark_format=json.
Json GoogleBenchmarkJson(const ResultFile& record);

// "<dir>/<stem>.gbench.json" for a record at "<dir>/<stem>.json" (any other name: the
// name with ".gbench.json" appended).
std::string GoogleBenchmarkExportPath(const std::string& record_path);

bool WriteGoogleBenchmarkExport(const std::string& path, const ResultFile& record,
                                std::string* error);

}  // namespace results
}  // namespace trickbench
