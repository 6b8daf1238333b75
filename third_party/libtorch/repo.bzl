"""@libtorch: the LibTorch trickbench compiles and links against.

Which one, first match:
  TRICKBENCH_LIBTORCH=debian  Debian's libtorch-dev 1.13, CPU only (`--config=torch113`)
  LIBTORCH_HOME=/path         a LibTorch folder or a PyTorch wheel's torch/ folder
  (default)                   the pinned torch wheel that tools/install_deps.sh puts in
                              trickbench's .venv (PyTorch 2.11, a CUDA 13 build), also
                              for a workspace that loads trickbench as @trickbench

Targets:
  :libtorch       headers; links libtorch_cpu and libc10, and with --config=cuda also
                  LibTorch's CUDA half (libtorch_cuda, libc10_cuda), so that CUDA is
                  available at run time in every binary of a CUDA build
  :libtorch_cuda  :libtorch plus the CUDA runtime library (CUDA_HOME, else /usr/local/cuda):
                  what a *_cuda.cc source depends on. The CUDA runtime's headers, which
                  LibTorch's c10/cuda headers include, come from @local_cuda//:headers
                  (see third_party/cuda/defs.bzl). Nothing here depends on @local_cuda:
                  a dependency on another repository adds its -iquote path to every
                  dependent's compile, which would make them differ from the CPU build.

Why libtorch_cpu and not libtorch: in a wheel, libtorch.so is an almost empty library
that NEEDS libtorch_cuda.so, which NEEDS cuBLAS, cuDNN, NCCL, cuSPARSELt, NVSHMEM...
(several GB). A CPU binary linked with libtorch_cpu only needs the CUDA runtime and CUPTI
(libtorch_cpu NEEDS them even for CPU runs; install_deps.sh installs those two wheels,
and libtorch_cpu's RUNPATH finds them in the venv).

Why --allow-shlib-undefined in a CUDA link: libtorch_cuda NEEDS cuFile, cuSPARSELt and
NVSHMEM, which the CUDA toolkit here does not carry (a GPU host's venv has them as
nvidia-* wheels). The linker still checks every symbol trickbench's own objects use
against LibTorch, and the libraries the toolkit has are found through -rpath-link; only
symbols that LibTorch's libraries leave to those three stay unresolved until run time.

A missing LibTorch does not fail the fetch: the build fails, naming what to install.
The rule is re-run when TRICKBENCH_LIBTORCH, LIBTORCH_HOME or CUDA_HOME change; after
installing the wheel into a workspace Bazel has already seen, `bazel sync --configure`.
"""

_DEBIAN_API = "/usr/include/torch/csrc/api/include"
_DEBIAN_LIB = "/usr/lib/x86_64-linux-gnu"

_BUILD = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "libtorch",
    hdrs = glob(["{hdr_root}/**"]) + select({{
        "@trickbench//:cuda": {cuda_hdrs},
        "//conditions:default": [],
    }}),
    includes = {includes},
    linkopts = {linkopts} + select({{
        "@trickbench//:cuda": {cuda_linkopts},
        "//conditions:default": [],
    }}),
)

cc_library(
    name = "libtorch_cuda",
    linkopts = {cudart_linkopts},
    deps = [":libtorch"],
)

# Fails, saying why, when --config=cuda meets a LibTorch without CUDA.
genrule(
    name = "no_cuda",
    outs = ["libtorch_has_no_cuda.h"],
    cmd = "echo 'ERROR: @libtorch: --config=cuda needs a CUDA LibTorch; this is {origin}, CPU only' >&2; exit 1",
)

# What this build compiles against, for `bazel build @libtorch//:origin`.
genrule(
    name = "origin",
    outs = ["origin.txt"],
    cmd = "echo '{origin}' > $@",
)
"""

# A LibTorch that cannot be used: every target fails to build with `why`.
_MISSING_BUILD = """
package(default_visibility = ["//visibility:public"])

genrule(
    name = "missing",
    outs = ["libtorch_missing.h"],
    cmd = {cmd},
)

cc_library(
    name = "libtorch",
    hdrs = [":missing"],
)

alias(
    name = "libtorch_cuda",
    actual = ":libtorch",
)

alias(
    name = "origin",
    actual = ":missing",
)
"""

def _find_wheel(ctx):
    """The torch/ folder of trickbench's own .venv, or None.

    "//" here is trickbench's root, also when another workspace loads this file through
    @trickbench (examples/my_training): the wheel install_deps.sh put in its checkout."""
    root = ctx.path(Label("//:WORKSPACE")).dirname
    lib = root.get_child(".venv").get_child("lib")
    if not lib.exists:
        return None
    for python in sorted([p.basename for p in lib.readdir()]):
        torch = lib.get_child(python).get_child("site-packages").get_child("torch")
        if python.startswith("python3") and torch.get_child("include").get_child("torch").exists:
            return torch
    return None

def _missing(ctx, why):
    ctx.file("WORKSPACE", "workspace(name = \"libtorch\")\n")
    # The message goes into a shell command inside a Starlark string: single-quoted for
    # the shell (without quotes of its own), then repr() for Starlark.
    cmd = "echo 'ERROR: @libtorch: %s' >&2; exit 1" % why.replace("'", "")
    ctx.file("BUILD", _MISSING_BUILD.format(cmd = repr(cmd)))

def _cuda_lib_dir(ctx):
    home = ctx.os.environ.get("CUDA_HOME", "") or "/usr/local/cuda"
    lib = ctx.path(home + "/lib64")
    return str(lib.realpath) if lib.get_child("libcudart.so").exists else ""

def _folder_build(ctx, root, origin):
    """A LibTorch folder or a wheel's torch/ folder: include/ and lib/ side by side."""
    inc = root.get_child("include")
    lib = root.get_child("lib")
    ctx.symlink(inc, "include")
    libdir = str(lib.realpath)
    cuda_linkopts = []
    cuda_hdrs = []
    cudart_linkopts = []
    if lib.get_child("libtorch_cuda.so").exists:
        cuda_libdir = _cuda_lib_dir(ctx)
        if cuda_libdir:
            cudart_linkopts = ["-L" + cuda_libdir, "-Wl,-rpath," + cuda_libdir, "-lcudart"]
        cuda_linkopts = [
            "-Wl,--no-as-needed",
            "-ltorch_cuda",
            "-lc10_cuda",
            "-Wl,--as-needed",
            "-Wl,--allow-shlib-undefined",
        ] + (["-Wl,-rpath-link," + cuda_libdir] if cuda_libdir else [])
    else:
        cuda_hdrs = [":no_cuda"]
    return dict(
        hdr_root = "include",
        includes = repr(["include", "include/torch/csrc/api/include"]),
        linkopts = repr([
            "-L" + libdir,
            "-Wl,-rpath," + libdir,
            # libtorch_cpu registers its operators from static initialisers: keep it
            # linked even where no symbol of it is used directly.
            "-Wl,--no-as-needed",
            "-ltorch_cpu",
            "-lc10",
            "-Wl,--as-needed",
            "-lpthread",
        ]),
        cuda_linkopts = repr(cuda_linkopts),
        cuda_hdrs = repr(cuda_hdrs),
        cudart_linkopts = repr(cudart_linkopts),
        origin = origin,
    )

def _debian_build(ctx):
    ctx.symlink(_DEBIAN_API, "api")
    return dict(
        hdr_root = "api",
        includes = repr(["api"]),
        linkopts = repr([
            "-L" + _DEBIAN_LIB,
            "-Wl,--no-as-needed",
            "-ltorch",
            "-ltorch_cpu",
            "-lc10",
            "-Wl,--as-needed",
            "-lpthread",
        ]),
        cuda_linkopts = "[]",
        cuda_hdrs = repr([":no_cuda"]),
        cudart_linkopts = "[]",
        origin = "debian libtorch-dev",
    )

def _libtorch_impl(ctx):
    choice = ctx.os.environ.get("TRICKBENCH_LIBTORCH", "")
    home = ctx.os.environ.get("LIBTORCH_HOME", "")
    if choice not in ["", "wheel", "debian"]:
        return _missing(ctx, "TRICKBENCH_LIBTORCH=%s: expected debian or wheel" % choice)
    if choice == "debian":
        if not ctx.path(_DEBIAN_API + "/torch/torch.h").exists:
            return _missing(ctx, "--config=torch113 needs Debian's libtorch-dev (apt-get install libtorch-dev)")
        fields = _debian_build(ctx)
    elif home and choice != "wheel":
        root = ctx.path(home)
        if not root.get_child("include").get_child("torch").exists or not root.get_child("lib").exists:
            return _missing(ctx, "LIBTORCH_HOME=%s is not a LibTorch folder (needs include/torch and lib/)" % home)
        fields = _folder_build(ctx, root, "LIBTORCH_HOME=" + home)
    else:
        wheel = _find_wheel(ctx)
        if not wheel:
            return _missing(ctx, "no torch wheel in .venv: run tools/install_deps.sh, then " +
                                 "bazel sync --configure (or build with --config=torch113 for Debian libtorch-dev)")
        fields = _folder_build(ctx, wheel, "wheel " + str(wheel.realpath))
    ctx.file("WORKSPACE", "workspace(name = \"libtorch\")\n")
    ctx.file("BUILD", _BUILD.format(**fields))

libtorch_repository = repository_rule(
    implementation = _libtorch_impl,
    environ = ["TRICKBENCH_LIBTORCH", "LIBTORCH_HOME", "CUDA_HOME"],
    configure = True,
    local = True,
)
