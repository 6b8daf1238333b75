// Down to the op: every ATen op one thread runs inside a scope, with hashes of its tensor
// inputs (as the op starts) and outputs (as it ends), so that two runs that diverged at a
// step can be rerun up to it and the first op whose output differs named.
//
//   std::vector<trickbench::OpRecord> a, b;
//   { trickbench::OpTraceScope scope; TrainStep(...); a = scope.Take(); }
//   ... the same in the other run: b ...
//   if (auto d = trickbench::FirstOpDivergence(a, b)) std::cerr << d->Describe();
//   // "first op whose output differs: #57 aten::index_add_ (its tensor inputs are equal:
//   //  the op itself computed differently: a nondeterministic kernel, ...)"
//
// Ops are listed in the order they end, so an op called inside another (aten::addmm in
// aten::linear) comes before its caller: the first differing op is the innermost. Ops
// that write nothing and return views of their inputs (aten::t, resolve_conj) are left
// out: they cannot be where runs part, and they are often handed a kernel's output
// buffer before the kernel writes it, uninitialised memory. Only
// the thread that opened the scope is recorded (a DataLoader worker's ops are not): the
// training step's own ops come in a deterministic order there. Hashing every tensor an op
// touches costs a copy and a hash per tensor: TraceRecorder opens a scope for one step
// only, the one $TRICKBENCH_OP_TRACE_STEP names (recorder.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trickbench {

struct OpRecord {
  std::string name;               // "aten::addmm"
  std::vector<uint64_t> inputs;   // HashTensor of each tensor input (0: undefined, 1: unreadable)
  std::vector<uint64_t> outputs;  // likewise; 2 for an allocation's (aten::empty*) output, whose
                                  // bytes are uninitialised memory, not a result
};

class OpTraceScope {
 public:
  OpTraceScope();
  ~OpTraceScope();
  OpTraceScope(const OpTraceScope&) = delete;
  OpTraceScope& operator=(const OpTraceScope&) = delete;

  // The ops recorded so far (in the order they ended), leaving the scope empty.
  std::vector<OpRecord> Take();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

struct OpDivergence {
  int64_t index = -1;  // position in the run's op list
  std::string op;      // its name in run a
  std::string other;   // run b's op at that position when the names differ
  bool inputs_equal = false;
  std::string Describe() const;
};

// The first op whose name or outputs differ (inputs are reported, not compared); nullopt
// when every op's name and outputs agree and the lists are as long.
std::optional<OpDivergence> FirstOpDivergence(const std::vector<OpRecord>& a,
                                              const std::vector<OpRecord>& b);

}  // namespace trickbench
