"""trickbench_cuda_library: sources that exist in two forms, for the CUDA and the CPU build.

    load("//third_party/cuda:defs.bzl", "trickbench_cuda_library")
    trickbench_cuda_library(
        name = "cuda_timing",
        hdrs = ["cuda_timing.h"],
        cuda_srcs = ["cuda_timing_cuda.cc"],      # with --config=cuda
        nocuda_srcs = ["cuda_timing_nocuda.cc"],  # without it: same functions, no CUDA
        deps = ["//third_party:libtorch"],
    )

Why a macro: a CUDA source includes LibTorch's c10/cuda headers, which include the CUDA
runtime's. Given as a dependency, those headers and their include path would reach every
dependent's compile, so a CUDA build would recompile the whole tree. Here they are private
to this library (headers in srcs, the include path in copts), and only this library's own
sources differ between the two builds; the callers, which see only `hdrs`, compile the
same, and Bazel reuses their CPU objects in a CUDA build. The CUDA libraries are linked
either way by @libtorch under --config=cuda.
"""

load("//common:copts.bzl", "TRICKBENCH_COPTS")

# Where @local_cuda (third_party/cuda/repo.bzl) links the toolkit's include folder.
_CUDA_INCLUDE = "external/local_cuda/cuda_include"

def trickbench_cuda_library(name, cuda_srcs, nocuda_srcs = [], hdrs = [], deps = [], **kwargs):
    native.cc_library(
        name = name,
        srcs = select({
            "//:cuda": cuda_srcs + ["@local_cuda//:headers"],
            "//conditions:default": nocuda_srcs,
        }),
        hdrs = hdrs,
        copts = TRICKBENCH_COPTS + select({
            "//:cuda": ["-isystem", _CUDA_INCLUDE],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//:cuda": ["@libtorch//:libtorch_cuda"],
            "//conditions:default": [],
        }),
        **kwargs
    )
