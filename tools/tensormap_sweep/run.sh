#!/usr/bin/env bash
# Builds and runs the two probes of NVIDIA's CUtensorMap on this machine's GPU and driver, writing
# into the folder given (default: the current one): machine.txt (GPU, driver, nvcc), encode_sweep.csv
# (encode_sweep.cpp: the driver's encoder) and replace_probe.csv (replace_probe.cu: tensormap.replace
# on sm_90a). docs/tensor_map.md reads the layout from them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)"
work="$(mktemp -d)"
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -n 2
  g++ --version | head -n 1
} >"$out/machine.txt"
g++ -std=c++17 -O1 -I/usr/local/cuda/include "$here/encode_sweep.cpp" -o "$work/encode_sweep" \
  -L/usr/local/cuda/lib64/stubs -lcuda
nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a "$here/replace_probe.cu" -o "$work/replace_probe" -lcuda
"$work/encode_sweep" >"$out/encode_sweep.csv"
"$work/replace_probe" >"$out/replace_probe.csv"
wc -l "$out"/*.csv
