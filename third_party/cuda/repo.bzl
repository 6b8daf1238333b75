"""@local_cuda: the CUDA toolkit, detected (CUDA_HOME, else /usr/local/cuda), never required.

Targets:
  @local_cuda//:nvtx     NVTX3 headers (header-only) with TRICKBENCH_HAVE_NVTX=1 when found,
                         an empty library otherwise, so NVTX ranges compile to nothing.
  @local_cuda//:headers  the CUDA runtime's headers, as files only: a *_cuda.cc source
                         lists them in its srcs and adds the include path to its own
                         copts (third_party/cuda/defs.bzl), so that neither reaches its
                         dependents and they compile the same with and without CUDA.
                         Without a toolkit, using them fails the build, saying so.
"""

_BUILD = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "nvtx",
    hdrs = {nvtx_hdrs},
    includes = {nvtx_includes},
    defines = {nvtx_defines},
    linkopts = {nvtx_linkopts},
)

filegroup(
    name = "headers",
    srcs = {cuda_hdrs},
)

genrule(
    name = "no_toolkit",
    outs = ["no_cuda_toolkit.h"],
    cmd = "echo 'ERROR: @local_cuda: --config=cuda needs the CUDA toolkit (cuda_runtime_api.h) in CUDA_HOME or /usr/local/cuda' >&2; exit 1",
)
"""

def _find_include(ctx, home):
    for sub in ["include", "targets/x86_64-linux/include", "targets/sbsa-linux/include"]:
        p = ctx.path(home + "/" + sub)
        if p.get_child("cuda_runtime_api.h").exists or p.get_child("nvtx3").exists:
            return p
    return None

def _cuda_impl(ctx):
    home = ctx.os.environ.get("CUDA_HOME", "") or "/usr/local/cuda"
    inc = _find_include(ctx, home) if ctx.path(home).exists else None
    fields = dict(
        nvtx_hdrs = "[]",
        nvtx_includes = "[]",
        nvtx_defines = "[]",
        nvtx_linkopts = "[]",
        cuda_hdrs = "[\":no_toolkit\"]",
    )
    if inc and inc.get_child("nvtx3").get_child("nvToolsExt.h").exists:
        ctx.symlink(inc.get_child("nvtx3"), "nvtx/nvtx3")
        fields.update(
            nvtx_hdrs = "glob([\"nvtx/nvtx3/**\"])",
            nvtx_includes = "[\"nvtx\"]",
            nvtx_defines = "[\"TRICKBENCH_HAVE_NVTX=1\"]",
            nvtx_linkopts = "[\"-ldl\"]",
        )
    if inc and inc.get_child("cuda_runtime_api.h").exists:
        ctx.symlink(inc, "cuda_include")
        fields.update(
            cuda_hdrs = "glob([\"cuda_include/**\"])",
        )
    ctx.file("WORKSPACE", "workspace(name = \"local_cuda\")\n")
    ctx.file("BUILD", _BUILD.format(**fields))

cuda_repository = repository_rule(
    implementation = _cuda_impl,
    environ = ["CUDA_HOME"],
    local = True,
)
