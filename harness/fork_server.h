// A trick binary as a fork server: LibTorch's start-up paid once per run, not once
// per process.
//
//   $ bazel-bin/benches/no_grad_inference --serve     # run_all starts it, pipes on 0 and 1
//   > {"args":["--out=/r/x.p2.json","--process=2"],"log":"/r/x.p2.log"}
//   < started 4242
//   < exited 0
//
// Why: loading LibTorch registers its operators, 0.26 s of every process's start on the
// 2-core machine this project is measured on (perf: OperatorEntry::updateDispatchTable
// and its callers), a fifth of a default run. The server does that once; each request
// forks a child that runs the trick's main() with the request's arguments, as an
// exec'd process would from the same point, since the server itself never touches
// LibTorch, threads or the allocator regime before it forks, and ends it as an exec'd
// process ends (harness/end_process.h: output flushed, no static destructors).
//
// What a child shares with its siblings that exec'd processes do not: the address-space
// layout (ASLR is drawn once, for the server) and the physical pages of what the server
// holds until a child writes them. A run's processes then sample every process-level
// source of variance but those; the README says what forking changed in the figures
// here, and run_all can start its processes either way.
//
// Protocol, one line each way per step (run_all/fork_client.h is the other end):
//   request   {"args":[...],"log":PATH}   the child's arguments (without argv[0]), and
//                                          the file for its stdout and stderr (truncated)
//   reply     started PID                  the child is in its own process group, PID;
//                                          it runs only once this line is written
//             refused REASON               nothing was started (bad request, a log that
//                                          cannot be opened, a server with threads)
//   reply     exited CODE | signaled SIG   once the child has been reaped
// End of input ends the server. The server waits for its child, so a caller that
// wants it gone sooner signals the child's group (-PID), never the server.
#pragma once

#include <functional>

namespace trickbench {

using MainFunction = std::function<int(int argc, char** argv)>;

// Serves requests from `in_fd`, replies on `out_fd`, until end of input; returns 0, or
// 1 when a reply cannot be written (the caller has gone). Each child runs
// main_fn({program, args...}) and exits with what it returns.
int ServeForks(int in_fd, int out_fd, const char* program, const MainFunction& main_fn);

// The number of threads of this process (/proc/self/task), -1 if unknown: a fork is
// safe only while it is 1, or a lock held by another thread stays held in the child.
int ThreadCount();

}  // namespace trickbench
