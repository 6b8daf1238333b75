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

// The op's input hashes, taken as it starts (an in-place op changes them), and the
// inputs themselves: the op's arguments are gone by the time it ends.
struct Started : at::ObserverContext {
  std::vector<uint64_t> inputs;
  std::vector<at::Tensor> tensors;
};

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  OpTraceScope::State* s = tls_state;
  if (!s || s->busy) return nullptr;
  s->busy = true;
  auto started = std::make_unique<Started>();
  ForEachTensor(fn.inputs(), [&](const at::Tensor& t) {
    started->inputs.push_back(Hash(*s, t));
    started->tensors.push_back(t);
  });
  s->busy = false;
  return started;
}

// What an op leaves behind, beside its returned tensors: the inputs it wrote (their hash
// changed while it ran), by index. An uninitialised input counts as written: its hash is
// not its bytes, so a copy_ into it would otherwise look like it wrote nothing.
std::vector<size_t> WrittenInputs(const OpTraceScope::State& s, const Started& started,
                                  std::vector<uint64_t>* hashes_now) {
  std::vector<size_t> written;
  for (size_t i = 0; i < started.tensors.size(); ++i) {
    hashes_now->push_back(Hash(s, started.tensors[i]));
    if (hashes_now->back() != started.inputs[i] || started.inputs[i] == kUninitialised) {
      written.push_back(i);
    }
  }
  return written;
}

// An in-place op that writes data (aten::fill_, zero_, add_, copy_): written whether or
// not its bytes changed. Judged by the hash alone, a fill_(0) into a buffer that
// happened to hold zeros already (the allocator's leftovers: a reduction's output
// reused) looked like it wrote nothing and was dropped, in one run and not the other,
// and two equal runs were said to take different code paths (gate_test saw it about
// once in ten runs). The in-place ops that change only metadata stay pass-through.
bool WritesInPlace(const std::string& op) {
  // By base name: autograd records some without the "aten::" (zero_grad's "detach_").
  static const std::unordered_set<std::string> kMetadataOnly = {
      "detach_",  "as_strided_", "resize_",    "resize_as_", "set_",      "requires_grad_",
      "squeeze_", "unsqueeze_",  "transpose_", "t_",         "swapdims_", "swapaxes_"};
  const size_t colons = op.rfind("::");
  const std::string base = colons == std::string::npos ? op : op.substr(colons + 2);
  return !base.empty() && base.back() == '_' && !kMetadataOnly.count(base);
}

// An op that wrote nothing and returns nothing but (views of) its inputs: aten::t,
// as_strided, resolve_conj on a tensor without the conjugate bit, detach_, the autograd
// engine's markers. It cannot be where two runs part; it is often handed a kernel's
// output buffer before the kernel writes it (a structured kernel's allocation is not an
// aten::empty op), whose hash would report the allocator's leftovers as a difference; and
// it depends on state that differs between equal runs (zero_grad detaches the gradients
// a resumed process does not have yet). So it is not recorded; its consumers are.
bool PassesThrough(const Started& started, const at::RecordFunction& fn, bool wrote) {
  if (wrote || WritesInPlace(fn.name())) return false;
  std::unordered_set<const void*> input_storages;
  for (const at::Tensor& t : started.tensors) input_storages.insert(StorageOf(t));
  bool all_inputs = true;
  ForEachTensor(fn.outputs(), [&](const at::Tensor& t) {
    all_inputs = all_inputs && StorageOf(t) && input_storages.count(StorageOf(t));
  });
  return all_inputs;
}

void OnEnd(const at::RecordFunction& fn, at::ObserverContext* ctx) {
  OpTraceScope::State* s = tls_state;
  if (!s || s->busy || !ctx) return;
  s->busy = true;
  OpRecord r;
  r.name = fn.name();
  const Started& started = *static_cast<Started*>(ctx);
  r.inputs = started.inputs;
  std::vector<uint64_t> inputs_now;
  const std::vector<size_t> written = WrittenInputs(*s, started, &inputs_now);
  if (PassesThrough(started, fn, !written.empty())) {
    s->busy = false;
    return;
  }
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
  // An op that returns no tensor but wrote into its inputs (aten::_foreach_add_): what
  // it wrote is its result.
  if (r.outputs.empty()) {
    for (const size_t i : written) r.outputs.push_back(inputs_now[i]);
  }
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
