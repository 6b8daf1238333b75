#!/usr/bin/env bash
# Installs what trickbench needs on Debian 12, from Debian's archive only; skips what
# is already there. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  bazel-bootstrap          # Bazel 4.2.3
  g++
  libtorch-dev             # LibTorch 1.13.1, CPU only
  libopenblas0-openmp      # without it LibTorch falls back to reference BLAS (~20x slower matmul)
  libbenchmark-dev         # Google Benchmark 1.7.1
  libgtest-dev             # GoogleTest 1.12.1
  nlohmann-json3-dev
  libgloo-dev              # c10d ProcessGroupGloo headers (ddp_vs_dp)
  liblmdb-dev              # packed_shards (LMDB store)
  libopencv-dev            # decode_format, data pipeline decoding
  cmake                    # the CMake build of the same sources (GPU hosts without Bazel)
  ninja-build
  chromium                 # renders the HTML report in tests (headless)
  git
  ca-certificates
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install_deps: everything is installed"
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
echo "install_deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
echo "install_deps: done"
