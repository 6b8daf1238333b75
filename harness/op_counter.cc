#include "harness/op_counter.h"

namespace trickbench {
namespace {
// The innermost live counter of this thread; each counts into itself and its outers.
thread_local OpCounter* tls_current = nullptr;
}  // namespace

OpCounter::OpCounter() : outer_(tls_current) {
  tls_current = this;
  // Only the outermost counter registers the callback: one callback, one count per op.
  handle_ = outer_ ? 0
                   : at::addThreadLocalCallback(at::RecordFunctionCallback(&OpCounter::OnStart)
                                                    .needsInputs(false)
                                                    .scopes({at::RecordScope::FUNCTION}));
}

OpCounter::~OpCounter() {
  if (!outer_) at::removeCallback(handle_);
  tls_current = outer_;
}

std::unique_ptr<at::ObserverContext> OpCounter::OnStart(const at::RecordFunction& fn) {
  for (OpCounter* c = tls_current; c != nullptr; c = c->outer_) ++c->counts_[fn.name()];
  return nullptr;
}

}  // namespace trickbench
