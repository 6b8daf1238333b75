// Whether a trick's CUDA cases are big enough for a GPU to time the trick rather than
// kernel launches: each case's declared work (TrickDef::Work) at an H200's peaks must
// take at least 100 us per timed run, and a claim about memory traffic needs a working
// set beyond the L2. A trick exempt by a declaration (LaunchBound, HostSide) is listed
// with its reason.
//
//   for (const SizingRow& row : SizeForH200(def)) {
//     if (!row.problem.empty()) std::cerr << def.id() << " " << row.case_name << ": "
//                                         << row.problem << "\n";
//   }
//
// Why peaks, not measured rates: the estimate is a floor on the real time (a kernel
// runs at most at peak), so a case above it here is above it on the device too, and
// the check runs on every machine, GPU or not. The docs/CATALOG.md sizing table is
// generated from these rows; the catalog refuses a registration with a problem.
#pragma once

#include <string>
#include <vector>

#include "harness/trick.h"

namespace trickbench {

// The H200 figures the check holds CUDA cases to (dense bf16 tensor-core peak, HBM3e
// bandwidth, PCIe 5.0 x16 one way, L2 size), and the floor per timed run.
struct H200 {
  static constexpr double kFlopPerSecond = 790e12;
  static constexpr double kBytesPerSecond = 4.3e12;
  static constexpr double kHostBytesPerSecond = 64e9;
  static constexpr double kL2Bytes = 60e6;
  static constexpr double kFloorSeconds = 100e-6;
};

// The time `work` takes at least on an H200: the largest of its FLOP, device-memory and
// host-copy times.
double H200Seconds(const CaseWork& work);

// One CUDA case of a trick: the variant with the least work (the one the floor binds),
// its work and estimated time; or, for an exempt trick, one row with the exemption.
struct SizingRow {
  std::string case_name;
  std::string variant;
  CaseWork work;
  double seconds = 0;
  std::string exemption;  // "launch bound: ..." / "host side: ..."; "" when sized
  std::string problem;    // "" when the case meets the floor
};

// The rows of `def`'s CUDA cases (its cases on a CUDA device). Never throws: a Work
// function that throws makes that case's problem.
std::vector<SizingRow> SizeForH200(const TrickDef& def);

}  // namespace trickbench
