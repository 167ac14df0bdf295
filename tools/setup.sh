#!/usr/bin/env bash
# Shared by main.sh and test.sh: install what is missing, configure, build
# (the targets given, or everything).
# Debian packages are installed when run as root; otherwise the apt-get line
# is printed. nvcc (CUDA >= 12.8), where found, adds the device code.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TCGEN_BUILD_DIR:-$root/build}"

packages=(cmake g++ doctest-dev libspdlog-dev libzstd-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "tcgen: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "tcgen: missing packages; run as root:" >&2
    echo "  apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# nvcc is often installed outside PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi

# cuobjdump (with nvdisasm, which it calls) lets the SASS checks run; some
# CUDA installs lack them, and PyPI has both as wheels (any 13.x reads nvcc
# 13.0's sm_100a code).
if { command -v nvcc >/dev/null 2>&1 || [ -n "${CUDACXX:-}" ]; } && ! command -v cuobjdump >/dev/null 2>&1; then
  tools_dir="$build/.cuda-tools"
  if [ ! -x "$tools_dir/nvidia/cu13/bin/cuobjdump" ]; then
    python3 -m pip install -q --disable-pip-version-check --target "$tools_dir" "nvidia-cuda-cuobjdump>=13.2,<14" "nvidia-cuda-nvdisasm>=13.2,<14" ||
      echo "tcgen: could not install cuobjdump from PyPI; the SASS checks will report skipped" >&2
  fi
  [ -x "$tools_dir/nvidia/cu13/bin/cuobjdump" ] && export PATH="$tools_dir/nvidia/cu13/bin:$PATH"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
# With arguments, only those targets (the main job needs the tcgen program alone); else everything.
if (($#)); then
  cmake --build "$build" -j "$(nproc)" --target "$@"
else
  cmake --build "$build" -j "$(nproc)"
fi
