// How a trick process ends: its output flushed, the handlers registered with
// std::at_quick_exit run, and then it is gone, without running the static destructors.
//
//   int main(int argc, char** argv) { trickbench::EndProcess(trickbench::TrickMain(argc, argv)); }
//   // a clean-up the process owes the machine: std::at_quick_exit(&RemoveMyFolder);
//
// Why not return from main(): LibTorch's static destructors undo its operator
// registrations one by one, about 75-130 ms per process on a 2-core VM (perf and strace,
// 2026-12-06): half of what a run_all process spent outside its measured phases, in a
// process whose work is done (its result file is written and synced before this). It
// also spares threads that still run (a loader's workers) a race with the destructors.
// A clean-up that must happen at exit registers with std::at_quick_exit, as
// common/shared_data.cc's folder for a trick run alone does.
#pragma once

namespace trickbench {

// std::cout, std::cerr and every C stream flushed, then std::quick_exit(exit_code).
[[noreturn]] void EndProcess(int exit_code);

}  // namespace trickbench
