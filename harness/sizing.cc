#include "harness/sizing.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace trickbench {
namespace {

std::string Us(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  return buf;
}

std::string Mb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  return buf;
}

}  // namespace

double H200Seconds(const CaseWork& work) {
  return std::max({work.flop / H200::kFlopPerSecond, work.bytes / H200::kBytesPerSecond,
                   work.host_bytes / H200::kHostBytesPerSecond});
}

std::vector<SizingRow> SizeForH200(const TrickDef& def) {
  if (!def.launch_bound_why().empty())
    return {{.exemption = "launch bound: " + def.launch_bound_why()}};
  if (!def.host_side_why().empty()) return {{.exemption = "host side: " + def.host_side_why()}};
  const torch::Device cuda(torch::kCUDA, 0);
  std::vector<SizingRow> rows;
  for (const std::string& case_name : def.cases(cuda)) {
    SizingRow row{.case_name = case_name};
    if (!def.work()) {
      row.problem =
          "declares no work: .Work(), or .LaunchBound(why) / .HostSide(why) where the floor "
          "does not apply";
      rows.push_back(row);
      continue;
    }
    bool first = true;
    for (const auto& v : def.variants()) {
      CaseWork w;
      try {
        w = def.work()(def.NewInstance(case_name, cuda, v.name));
      } catch (const std::exception& e) {
        row.problem = "Work() threw for variant " + v.name + ": " + e.what();
        break;
      }
      const double s = H200Seconds(w);
      if (first || s < row.seconds) {
        row.variant = v.name;
        row.work = w;
        row.seconds = s;
        first = false;
      }
    }
    if (row.problem.empty() && row.seconds < H200::kFloorSeconds) {
      row.problem = "variant " + row.variant + " does " + Us(row.seconds) +
                    " of work at an H200's peaks, under the " + Us(H200::kFloorSeconds) +
                    " floor: a GPU would time its launches";
    } else if (row.problem.empty() && def.traffic_bound() &&
               row.work.working_set <= H200::kL2Bytes) {
      row.problem = "working set " + Mb(row.work.working_set) + " fits in an H200's " +
                    Mb(H200::kL2Bytes) + " L2, and the claim is about memory traffic";
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace trickbench
