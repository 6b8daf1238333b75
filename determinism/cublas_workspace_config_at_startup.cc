// Linked (alwayslink) into a binary, sets CUBLAS_WORKSPACE_CONFIG to the deterministic
// value before main runs, so no cuBLAS handle can exist yet. A value the user set
// wins. See guard.h.
#include "determinism/guard.h"

namespace {
[[maybe_unused]] const bool kSetAtStartup = trickbench::SetCublasWorkspaceConfigIfUnset();
}  // namespace
