#!/usr/bin/env bash
# The main job. Until the FMHA exists it draws a layout: the K-major,
# 128B-swizzled bf16 operand tile of a 128x64 UMMA A operand, with its
# descriptor fields, as text and as a picture.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TCGEN_BUILD_DIR:-$root/build}"
"$root/tools/setup.sh"
"$build/tools/tcgen/tcgen" layout smem --dtype bf16 --major K --swizzle 128B --rows 128 --cols 64 \
  --svg "$build/layout-smem-bf16-K-128B.svg"
echo "picture: $build/layout-smem-bf16-K-128B.svg"
