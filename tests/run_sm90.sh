#!/usr/bin/env bash
# Every Hopper check in one command, for anyone with an sm_90 GPU (H100/H200):
# builds the sm90 device tests (element types, wgmma against the layout and
# mma libraries and the host model, TMA against the host model and the
# layout library, the FMHA kernel's TMA loads and SMEM descriptors through
# TMA and wgmma, the sparse decode kernel's dequantisation and its keys
# tile read as K and as V through wgmma, the device hang report, clusters with distributed shared
# memory against the host model) and runs them verbosely. Needs cmake, a C++20 compiler,
# nvcc 12.8+, doctest and spdlog headers; no network.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TCGEN_BUILD_DIR:-$root/build-sm90}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
nvcc --version | tail -n 1
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTCGEN_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target device_element_type_sm90 device_wgmma_sm90 device_tma_sm90 \
  device_fmha_smem_sm90 device_sparse_decode_smem_sm90 device_hang_sm90 device_ptx_semantics_sm90 device_cluster_sm90
ctest --test-dir "$build" -L sm90 -V
