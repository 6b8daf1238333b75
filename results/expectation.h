// A claim as data: what the article claims one variant does to one metric. The trick
// registration states it (claim::Faster(1.3, 4), harness/trick.h), the result file
// records it (trickbench.expectations[], result_file.h has its JSON) and the report grades
// each measured setting against it. No JSON here: the trick contract includes this, not
// the whole record schema.
//
//   results::Expectation e{.metric = "time", .low = 1.3, .high = 4, .device = "cuda"};
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
  std::string metric;     // "time", "memory" (peak: the device's on CUDA) or a checks counter
  bool lowers = true;     // the variant lowers the metric; false: raises it
  double low = 0;         // the claimed factor's lower end; 0: no figure, any material effect
  double high = 0;        // its upper end; 0: none given
  std::string device;     // "cuda" or "cpu": where the article's figure applies; "" anywhere
  std::string variant;    // the variant it is about; "" every non-baseline variant
  std::string case_name;  // the case it is about; "" every case
  std::string note;       // why it applies only there, or where the figure comes from
};

}  // namespace results
}  // namespace trickbench
