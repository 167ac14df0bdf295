#!/usr/bin/env bash
# The main job: the FMHA forward kernel's built-in example on the host model
# (tcgen fmha with no arguments): shapes, the softmax scale, the error against
# an fp64 reference, and the time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TCGEN_BUILD_DIR:-$root/build}"
"$root/tools/setup.sh" tcgen  # the program alone: the tests are tools/test.sh's
"$build/tools/tcgen/tcgen" fmha "$@"
