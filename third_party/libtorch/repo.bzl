"""@libtorch: LibTorch from LIBTORCH_HOME when set, else Debian's libtorch-dev.

LIBTORCH_HOME may be a LibTorch folder or a PyTorch wheel's `torch/` folder: both
have `include/` and `lib/`. With `--config=cuda` the CUDA libraries of that build
are linked too (see //:cuda).
"""

_DEBIAN_API = "/usr/include/torch/csrc/api/include"
_DEBIAN_LIB = "/usr/lib/x86_64-linux-gnu"

_BUILD = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "libtorch",
    hdrs = glob(["{hdr_root}/**"]),
    includes = {includes},
    linkopts = {linkopts},
)

# LibTorch's CUDA libraries, with the CUDA runtime's headers and library (the c10/cuda
# and ATen/cuda headers include cuda_runtime_api.h): what any --config=cuda source needs.
cc_library(
    name = "libtorch_cuda",
    linkopts = {cuda_linkopts},
    deps = [
        ":libtorch",
        "@local_cuda//:cudart",
    ],
)

# What this build links against, for the environment record of every result.
genrule(
    name = "origin",
    outs = ["origin.txt"],
    cmd = "echo '{origin}' > $@",
)
"""

def _libtorch_impl(ctx):
    home = ctx.os.environ.get("LIBTORCH_HOME", "")
    if home:
        root = ctx.path(home)
        inc = root.get_child("include")
        lib = root.get_child("lib")
        if not inc.get_child("torch").exists or not lib.exists:
            fail("LIBTORCH_HOME=%s is not a LibTorch folder (needs include/torch and lib/)" % home)
        ctx.symlink(inc, "include")
        libdir = str(lib.realpath)
        hdr_root = "include"
        includes = ["include", "include/torch/csrc/api/include"]
        origin = "LIBTORCH_HOME=" + home
    else:
        if not ctx.path(_DEBIAN_API + "/torch/torch.h").exists:
            fail("LibTorch not found: install Debian's libtorch-dev (tools/install_deps.sh) " +
                 "or set LIBTORCH_HOME to a LibTorch folder")
        ctx.symlink(_DEBIAN_API, "api")
        libdir = _DEBIAN_LIB
        hdr_root = "api"
        includes = ["api"]
        origin = "debian libtorch-dev"
    linkopts = [
        "-L" + libdir,
        "-Wl,-rpath," + libdir,
        # libtorch_cpu registers its operators from static initialisers: keep it linked.
        "-Wl,--no-as-needed",
        "-ltorch",
        "-ltorch_cpu",
        "-lc10",
        "-Wl,--as-needed",
        "-lpthread",
    ]
    cuda_linkopts = [
        "-Wl,--no-as-needed",
        "-ltorch_cuda",
        "-lc10_cuda",
        "-Wl,--as-needed",
    ]
    ctx.file("WORKSPACE", "workspace(name = \"libtorch\")\n")
    ctx.file("BUILD", _BUILD.format(
        hdr_root = hdr_root,
        includes = repr(includes),
        linkopts = repr(linkopts),
        cuda_linkopts = repr(cuda_linkopts),
        origin = origin,
    ))

libtorch_repository = repository_rule(
    implementation = _libtorch_impl,
    environ = ["LIBTORCH_HOME"],
    local = True,
)
