// A claim as data: what the article claims one variant does to one metric. The trick
// registration states it (claim::Faster(1.3, 4), harness/trick.h), the result file
// records it (trickbench.expectations[], result_file.h has its JSON) and the report grades
// each measured setting against it. No JSON here: the trick contract includes this, not
// the whole record schema.
//
//   results::Expectation e{.metric = "time", .low = 1.3, .high = 4, .device = "cuda"};
//   results::Expectation r{.metric = "rate", .work = "flop_per_run"};  // achieved FLOP/s
//
// What may be graded: measured time, measured peak memory, a rate of work per measured
// second, or a counter the trick *measures* (a reading: how far two results drift, what
// the allocator holds after a step), which says how in `measured_by`. A counter that
// follows from the trick's own code or shapes (parameters, FLOP per run, calls its body
// makes) is evidence: recorded and shown, read by Inactive(), never graded, since no
// measurement could change it.
#pragma once

#include <string>

namespace trickbench {
namespace results {

// What the article claims one variant does to one metric (trickbench.expectations[],
// SCHEMA.md "Claims"): the report grades each measured setting against it.
// The factor is baseline / variant when the claim is that the variant lowers the metric
// (a speedup; a memory saving of 37 % is a factor 1 / 0.63), variant / baseline when it
// raises it (a cost the article warns of). One scale for every metric keeps one grading.
struct Expectation {
  // "time", "memory" (peak: the device's on CUDA), "host_memory" (the CPU meter's peak
  // anywhere), "rate" (`work` per measured second) or a checks counter
  std::string metric;
  bool lowers = true;     // the variant lowers the metric; false: raises it
  double low = 0;         // the claimed factor's lower end; 0: no figure, any material effect
  double high = 0;        // its upper end; 0: none given
  std::string device;     // "cuda" or "cpu": where the article's figure applies; "" anywhere
  std::string variant;    // the variant it is about; "" every non-baseline variant
  std::string case_name;  // the case it is about; "" every case
  std::string note;       // why it applies only there, or where the figure comes from
  // A counter metric: how the trick measures it. Empty: the counter is evidence, and the
  // report refuses to grade it.
  std::string measured_by;
  // Metric "rate": the counter of work per run (FLOP, bytes) whose rate per second of
  // the paired rounds' time is graded. The work may be evidence (shapes decide it); the
  // rate is measured, since its time is.
  std::string work;
};

// The metrics the report measures itself; any other metric names a checks counter.
// "host_memory" is the CPU meter's peak on every device (a claim about host buffers on a
// CUDA host); "memory" is the device's peak there.
inline bool IsCounterMetric(const std::string& metric) {
  return metric != "time" && metric != "memory" && metric != "host_memory" && metric != "rate";
}

}  // namespace results
}  // namespace trickbench
