#!/usr/bin/env bash
# compare.sh: tcgen's FMHA (bench_fmha) and cuDNN's (cudnn_sdpa.py) on the same
# problems, side by side in TFLOP/s (FmhaProblem::flops() for both).
#
#   tools/bench_fmha/compare.sh [--bench BINARY] [OPTIONS...]
#       BINARY: bench_fmha (default build/tools/bench_fmha/bench_fmha);
#       OPTIONS go to both (--quick, --dtype, --head-dim, --mask, --seq,
#       --batch, --heads, --heads-kv, --iters, --warmup; see main.cu).
# Exit: bench_fmha's (0 ran, 1 failed, 77 no sm_100 GPU). Where cuDNN is not
# measured (no PyTorch with CUDA, ...) its column is "-" and the reason printed.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$here/../../build/tools/bench_fmha/bench_fmha"
if [ "${1:-}" = "--bench" ]; then
  bench=$2
  shift 2
fi
[ -x "$bench" ] || { echo "compare.sh: $bench is not built (cmake --build build --target bench_fmha)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bench" "$@" >"$tmp/tcgen.txt"
rc=$?
cat "$tmp/tcgen.txt"
[ "$rc" = 0 ] || exit "$rc"
python3 "$here/cudnn_sdpa.py" --bench "$bench" "$@" >"$tmp/cudnn.txt" 2>&1  # checks its table against "$bench" --list
crc=$?
echo
head -1 "$tmp/cudnn.txt"
[ "$crc" = 0 ] || [ "$crc" = 77 ] || { cat "$tmp/cudnn.txt"; echo "compare.sh: cudnn_sdpa.py failed (exit $crc)"; }
echo

# Rows of both: the first seven columns name the problem, the ninth is TFLOP/s.
awk '
  function row(line,   f, n, k, i) {
    n = split(line, f, " ")
    if (f[1] != "bf16" && f[1] != "fp16") return ""
    k = f[1]; for (i = 2; i <= 7; ++i) k = k " " f[i]
    keys[k] = 1
    return k SUBSEP ((n >= 9 && f[9] ~ /^[0-9.]+$/) ? f[9] : "-")
  }
  FNR == NR { r = row($0); if (r != "") { split(r, kv, SUBSEP); tcgen[kv[1]] = kv[2]; order[++count] = kv[1] } next }
  { r = row($0); if (r != "") { split(r, kv, SUBSEP); cudnn[kv[1]] = kv[2] } }
  END {
    printf "%-5s %3s %6s %5s %6s %6s  %-7s   %14s %14s %12s\n", "dtype", "D", "batch", "heads", "seq_q", "seq_k", "mask",
           "tcgen TFLOP/s", "cuDNN TFLOP/s", "tcgen/cuDNN"
    for (i = 1; i <= count; ++i) {
      k = order[i]; c = (k in cudnn) ? cudnn[k] : "-"
      ratio = (c != "-" && c + 0 > 0 && tcgen[k] != "-") ? sprintf("%.2f", tcgen[k] / c) : "-"
      split(k, f, " ")
      printf "%-5s %3d %6d %5d %6d %6d  %-7s   %14s %14s %12s\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7], tcgen[k], c, ratio
    }
  }' "$tmp/tcgen.txt" "$tmp/cudnn.txt"
exit 0
