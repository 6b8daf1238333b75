// Which machine this is, in the words a result or a trace records: the host name and
// the CPU model. Two runs that disagree on these ran on different machines.
//
//   std::string where = trickbench::HostName() + " (" + trickbench::CpuModel() + ")";
#pragma once

#include <string>

namespace trickbench {

std::string HostName();  // gethostname(); "unknown" when it fails
std::string CpuModel();  // /proc/cpuinfo's first "model name"; "unknown" without one

}  // namespace trickbench
