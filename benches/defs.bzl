"""Turns trick files into targets: benches/<id>.cc -> //benches:<id> and //benches:<id>_test.

    load("//benches:defs.bzl", "trickbench_tricks")
    trickbench_tricks(glob(["*.cc"]))

Per trick <id>:
  <id>_trick  the trick's library (alwayslink: it registers itself)
  <id>        its benchmark binary (main: harness/main.cc), `bazel run //benches:<id>`
  <id>_test   its test (harness/trick_test_main.cc): registration, checks,
              reproducibility in-process and across two processes, smoke run of <id>
A file <id>_cuda.cc beside it is compiled only with --config=cuda (it may use the
c10/cuda headers, which do not compile against a CPU-only LibTorch).
"""

load("//common:copts.bzl", "TRICKBENCH_COPTS")

# What every trick may use without listing it.
_COMMON_DEPS = [
    "//determinism",
    "//harness:trick",
    "//workloads",
    "//third_party:libtorch",
]

def trickbench_trick(name, deps = [], data = [], test_size = "medium", test_tags = [], cuda_srcs = []):
    native.cc_library(
        name = name + "_trick",
        srcs = [name + ".cc"] + select({
            "//:cuda": cuda_srcs,
            "//conditions:default": [],
        }),
        copts = TRICKBENCH_COPTS,
        data = data,
        deps = _COMMON_DEPS + deps,
        alwayslink = True,
    )
    native.cc_binary(
        name = name,
        data = data,
        deps = [
            ":" + name + "_trick",
            "//harness:main",
        ],
    )
    native.cc_test(
        name = name + "_test",
        size = test_size,
        args = [
            "--expected_id=" + name,
            "--trick_binary=$(rootpath :%s)" % name,
        ],
        data = [":" + name] + data,
        tags = test_tags,
        deps = [
            ":" + name + "_trick",
            "//harness:trick_test_main",
        ],
    )

def trickbench_tricks(srcs, deps = {}, data = {}, test_size = {}, test_tags = {}):
    """One trickbench_trick per `<id>.cc` in srcs; `<id>_cuda.cc` files go with their trick.

    deps, data, test_size, test_tags: optional per-id extras, keyed by id.
    Returns the ids, in order.
    """
    names = [s for s in srcs if s.endswith(".cc")]
    ids = sorted([s[:-3] for s in names if not s.endswith("_cuda.cc") and not s.endswith("_test.cc")])
    for id in ids:
        cuda = id + "_cuda.cc"
        trickbench_trick(
            name = id,
            deps = deps.get(id, []),
            data = data.get(id, []),
            test_size = test_size.get(id, "medium"),
            test_tags = test_tags.get(id, []),
            cuda_srcs = [cuda] if cuda in names else [],
        )
    return ids
