#!/usr/bin/env bash
# Installs what trickbench needs on Debian 12; skips what is already there.
#
#   tools/install_deps.sh              # Debian packages (root or sudo) and .venv/
#   tools/install_deps.sh --venv-only  # only the torch wheel in .venv/ (no root needed)
#
# 1. Debian packages (apt-get): Bazel, the compilers, GoogleTest, Google Benchmark's
#    compare.py (a test reads two Google Benchmark exports with it), clang-format, the libraries of the data and
#    distributed tricks, and Debian's LibTorch 1.13 (the `--config=torch113` alternative).
# 2. The LibTorch the build uses by default: the pinned PyTorch wheel (tools/requirements-
#    torch.txt, hashes checked), pip-installed into <repo>/.venv (ignored by git), the version
#    the GPU hosts carry. Bazel and CMake find it there with no variable to set.
#    Only what building and CPU runs need is installed: the wheel itself with --no-deps,
#    plus the CUDA runtime and CUPTI wheels (~13 MB; libtorch_cpu.so needs
#    libcudart.so.13 and libcupti.so.13 even for CPU runs). The rest of the wheel's
#    dependencies (cuBLAS, cuDNN, NCCL, cuSPARSELt, NVSHMEM, triton...: several GB) are only
#    needed to *run* on a GPU, which a GPU host's own torch install provides.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv_only=0
for arg in "$@"; do
  case "$arg" in
    --venv-only) venv_only=1 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install_deps: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  bazel-bootstrap          # Bazel 4.2.3
  g++
  python3-venv             # the project-local venv for the torch wheel
  libtorch-dev             # LibTorch 1.13.1, CPU only: --config=torch113
  libopenblas0-openmp      # for libtorch-dev: without it reference BLAS (~20x slower matmul)
  libgtest-dev             # GoogleTest 1.12.1
  libbenchmark-tools       # Google Benchmark's compare.py: a test reads two exports with it
  python3-scipy            # compare.py's U test (and numpy)
  nlohmann-json3-dev
  libgloo-dev              # c10d ProcessGroupGloo's headers (ddp_vs_dp); the wheel has none
  liblmdb-dev              # packed_shards (LMDB store)
  libopencv-dev            # decode_format, data pipeline decoding
  libjpeg62-turbo-dev      # decoder_choice (libjpeg-turbo's API directly)
  cmake                    # the CMake build of the same sources (GPU hosts without Bazel)
  ninja-build
  clang-format             # the house style (.clang-format), checked by .ci/run step format
  chromium                 # renders the HTML report in tests (headless)
  git
  ca-certificates
)

install_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "install_deps: Debian packages: all installed"
    return
  fi
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
  echo "install_deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The wheel and the two runtime wheels, exactly as pinned (pip --require-hashes).
install_venv() {
  local venv="$root/.venv" requirements="$root/tools/requirements-torch.txt"
  local want have
  want=$(sed -n 's/^torch==\([^ ]*\).*/\1/p' "$requirements")
  if [[ -x "$venv/bin/python" ]]; then
    have=$("$venv/bin/python" -m pip show torch 2>/dev/null | sed -n 's/^Version: //p' || true)
    if [[ "$have" == "$want" ]] && ls "$venv"/lib/python3*/site-packages/nvidia/cu13/lib/libcupti.so.13 \
        "$venv"/lib/python3*/site-packages/nvidia/cu13/lib/libcudart.so.13 >/dev/null 2>&1; then
      echo "install_deps: .venv: torch $have already installed"
      return
    fi
  fi
  echo "install_deps: .venv: installing torch $want (CUDA 13 build, ~530 MB download) and the CUDA runtime/CUPTI wheels"
  python3 -m venv "$venv"
  # --no-deps: see the top of this file for what is left out and why.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    --require-hashes --only-binary=:all: -r "$requirements"
  echo "install_deps: .venv: $(du -sh "$venv" | cut -f1) in $venv"
}

if (( ! venv_only )); then install_packages; fi
install_venv
echo "install_deps: done"
