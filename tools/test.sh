#!/usr/bin/env bash
# Every test: host tests, compile-fail tests, the install test, and the device
# tests (sm90, sm100), which report skipped where no such GPU is present.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TCGEN_BUILD_DIR:-$root/build}"
"$root/tools/setup.sh"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
