#!/usr/bin/env bash
# The silicon-proven corpus: NVIDIA's Blackwell examples and CuTe tutorials
# (tools/corpus/programs.txt) built unmodified and run under `tcgen run`, each
# needing its own pass verdict; --report writes docs/corpus.md. Options and
# names go to tools/corpus.py (--help).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/setup.sh" tcgen tcgen_cudart
exec python3 "$root/tools/corpus.py" "$@"
