#!/usr/bin/env bash
# Shared by main.sh and test.sh: install what is missing, configure, build
# (the targets given, or everything).
# Debian packages are installed when run as root; otherwise the apt-get line
# is printed. nvcc (CUDA >= 12.8), where found, adds the device code.
# The build is quiet: a line per step on stderr, everything else in
# $build/setup.log, whose last lines are shown when a step fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TCGEN_BUILD_DIR:-$root/build}"
mkdir -p "$build"
log="$build/setup.log"
: >"$log"

# step "what is being done" command...: one line, the command's output to the log.
step() {
  local what="$1"
  shift
  echo "tcgen: $what" >&2
  if ! "$@" >>"$log" 2>&1; then
    echo "tcgen: that failed; the last lines of $log:" >&2
    tail -n 25 "$log" >&2
    exit 1
  fi
}

packages=(cmake g++ doctest-dev libspdlog-dev libzstd-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    step "updating apt-get's package lists" apt-get update -qq
    step "installing ${missing[*]} (apt-get)" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
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
    echo "tcgen: installing cuobjdump and nvdisasm from PyPI (for the SASS checks)" >&2
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check --target "$tools_dir" \
      "nvidia-cuda-cuobjdump>=13.2,<14" "nvidia-cuda-nvdisasm>=13.2,<14" >>"$log" 2>&1 ||
      echo "tcgen: could not install cuobjdump from PyPI; the SASS checks will report skipped ($log says why)" >&2
  fi
  [ -x "$tools_dir/nvidia/cu13/bin/cuobjdump" ] && export PATH="$tools_dir/nvidia/cu13/bin:$PATH"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  step "configuring (cmake) in $build" cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
# With arguments, only those targets (the main job needs the tcgen program alone); else everything.
start=$SECONDS
if (($#)); then
  step "building $* (the first time about 3 minutes on 2 cores; the log is $log)" \
    cmake --build "$build" -j "$(nproc)" --target "$@"
else
  step "building everything (the first time about 7 minutes on 2 cores; the log is $log)" \
    cmake --build "$build" -j "$(nproc)"
fi
echo "tcgen: built in $((SECONDS - start)) s" >&2
