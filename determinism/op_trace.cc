#include "determinism/op_trace.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <exception>
#include <sstream>
#include <unordered_set>

#include "determinism/fingerprint.h"

namespace trickbench {

struct OpTraceScope::State {
  at::CallbackHandle handle = 0;
  std::vector<OpRecord> ops;
  bool busy = false;  // hashing runs ops (copies) of its own: those are not recorded
  // Storage an allocation (aten::empty*) returned and no op has written yet: its bytes are
  // whatever the allocator left, different from run to run, so they are not hashed.
  std::unordered_set<const void*> uninitialised;
};

namespace {

thread_local OpTraceScope::State* tls_state = nullptr;

constexpr uint64_t kUndefined = 0, kUnreadable = 1, kUninitialised = 2;

// An allocation's output is uninitialised memory whatever the run (empty, empty_strided,
// new_empty, ...): its bytes are not a result; what reads them shows up downstream.
bool IsAllocation(const std::string& op) { return op.find("empty") != std::string::npos; }

// Calls f on every tensor among `values` (tensors and tensor lists).
template <typename Values, typename F>
void ForEachTensor(const Values& values, F f) {
  for (const c10::IValue& v : values) {
    if (v.isTensor()) {
      f(v.toTensor());
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList().vec()) f(t);
    }
  }
}

const void* StorageOf(const at::Tensor& t) {
  return t.defined() && t.has_storage() ? t.storage().data() : nullptr;
}

uint64_t Hash(const OpTraceScope::State& s, const at::Tensor& t) {
  if (!t.defined()) return kUndefined;
  if (s.uninitialised.count(StorageOf(t))) return kUninitialised;
  try {
    return HashTensor(t);
  } catch (const std::exception&) {
    return kUnreadable;  // a sparse or meta tensor: compared by the tensors around it
  }
}

// The op's input hashes, taken as it starts (an in-place op changes them).
struct Started : at::ObserverContext {
  std::vector<uint64_t> inputs;
};

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  OpTraceScope::State* s = tls_state;
  if (!s || s->busy) return nullptr;
  s->busy = true;
  auto started = std::make_unique<Started>();
  ForEachTensor(fn.inputs(), [&](const at::Tensor& t) { started->inputs.push_back(Hash(*s, t)); });
  s->busy = false;
  return started;
}

void OnEnd(const at::RecordFunction& fn, at::ObserverContext* ctx) {
  OpTraceScope::State* s = tls_state;
  if (!s || s->busy || !ctx) return;
  s->busy = true;
  OpRecord r;
  r.name = fn.name();
  r.inputs = static_cast<Started*>(ctx)->inputs;
  const bool allocation = IsAllocation(r.name);
  ForEachTensor(fn.outputs(), [&](const at::Tensor& t) {
    const void* storage = StorageOf(t);
    if (allocation && storage) {
      s->uninitialised.insert(storage);
    } else {
      s->uninitialised.erase(storage);  // written by this op (copy_, an out= kernel)
    }
    r.outputs.push_back(Hash(*s, t));
  });
  s->ops.push_back(std::move(r));
  s->busy = false;
}

}  // namespace

OpTraceScope::OpTraceScope() : state_(std::make_unique<State>()) {
  tls_state = state_.get();
  state_->handle = at::addThreadLocalCallback(at::RecordFunctionCallback(&OnStart, &OnEnd)
                                                  .needsInputs(true)
                                                  .needsOutputs(true)
                                                  .scopes({at::RecordScope::FUNCTION}));
}

OpTraceScope::~OpTraceScope() {
  at::removeCallback(state_->handle);
  tls_state = nullptr;
}

std::vector<OpRecord> OpTraceScope::Take() {
  std::vector<OpRecord> out;
  out.swap(state_->ops);
  return out;
}

std::optional<OpDivergence> FirstOpDivergence(const std::vector<OpRecord>& a,
                                              const std::vector<OpRecord>& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i <= n; ++i) {
    OpDivergence d;
    d.index = static_cast<int64_t>(i);
    if (i == n) {
      if (a.size() == b.size()) return std::nullopt;
      d.op = i < a.size() ? a[i].name : "(none: run a ran fewer ops)";
      d.other = i < b.size() ? b[i].name : "(none: run b ran fewer ops)";
      return d;
    }
    // Outputs only: an op fed other inputs that still returns the same (relu of other
    // negatives) has not carried the difference on.
    if (a[i].name == b[i].name && a[i].outputs == b[i].outputs) continue;
    d.op = a[i].name;
    if (a[i].name != b[i].name) d.other = b[i].name;
    d.inputs_equal = a[i].inputs == b[i].inputs;
    return d;
  }
  return std::nullopt;
}

std::string OpDivergence::Describe() const {
  std::ostringstream os;
  os << "first op whose output differs: #" << index << " " << op;
  if (!other.empty()) {
    os << " (run b ran " << other << " there: the runs took different code paths)";
  } else if (inputs_equal) {
    os << " (its tensor inputs are equal: the op itself computed differently: a "
          "nondeterministic kernel, or a scalar argument or generator state that differs)";
  } else {
    os << " (its inputs differ already: they came from outside the recorded ops, e.g. the "
          "data loader, another thread or the RNG)";
  }
  return os.str();
}

}  // namespace trickbench
