"""The one set of compiler options for trickbench's own code (abseil style)."""

TRICKBENCH_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    # LibTorch 1.13 headers trip these under gcc 12; they are not ours to fix.
    "-Wno-maybe-uninitialized",
    "-Wno-missing-field-initializers",
]
