// The preconditions of a reproducible run, audited in this process: each one's state,
// whether it holds, what to set and why it matters.
//
//   for (const auto& p : trickbench::AuditDeterminism())
//     if (p.status == trickbench::Precondition::kNotOk) std::cerr << p.name << ": " << p.fix;
//   std::cout << trickbench::FormatAudit(trickbench::AuditDeterminism());
//   // deterministic_algorithms  off       NOT OK  torch::use_deterministic_algorithms(true) ...
//
// Most of these are process-wide flags that a library, a test fixture or an earlier line
// of main may have changed, so the audit reads them where the training runs: a
// TraceRecorder (recorder.h) writes every precondition's state into its trace at the
// first recorded step, and `diff --audit` prints both runs' audits side by side. What the
// process cannot show (whether loader workers seed each sample) is stated as advice,
// never judged. DeterministicGuard (guard.h) sets every flag judged here.
#pragma once

#include <string>
#include <vector>

#include "determinism/guard.h"

namespace trickbench {

struct Precondition {
  enum Status {
    kOk,             // holds
    kNotOk,          // does not hold: `fix` says what to set
    kNotApplicable,  // not relevant in this build or process (cuDNN without CUDA)
    kAdvice,         // not visible from the process state: stated, not judged
  };
  std::string name;   // "deterministic_algorithms"
  std::string state;  // "on", "off (warn only)", ":4096:8", "unset", "4 threads"
  Status status = kAdvice;
  std::string fix;  // what to set; "" when it holds
  std::string why;  // what goes wrong without it
};

// Every precondition, in a fixed order (the order FormatAudit prints).
std::vector<Precondition> AuditDeterminism();
// The same judgement of given flags, as on a process with (or without) a CUDA device: what
// the audit says on a GPU host, seen where there is none. The thread count, OMP_NUM_THREADS
// and where CUBLAS_WORKSPACE_CONFIG came from are still this process's.
std::vector<Precondition> AuditDeterminism(const DeterminismFlags& flags, bool cuda_available);

// True when no applicable precondition is kNotOk.
bool AuditPasses(const std::vector<Precondition>& audit);

// One line per precondition: name, state, verdict; then for one not ok the fix and why,
// for advice why.
std::string FormatAudit(const std::vector<Precondition>& audit);

const char* StatusName(Precondition::Status s);  // "ok", "NOT OK", "n/a", "advice"
// The inverse of StatusName; false for any other text.
bool ParseStatus(const std::string& name, Precondition::Status* s);

}  // namespace trickbench
