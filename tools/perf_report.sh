#!/usr/bin/env bash
# perf_report.sh: what ptxas and the SASS say about the sm_100a GEMM kernel
# of tools/bench_gemm (tcgen::gemm, bf16 -> bf16, tile 128x256, 4 stages).
#
#   tools/perf_report.sh [BUILD_DIR]
#       compiles tools/bench_gemm/main.cu as CMake does (-O3, sm_100a) with
#       -Xptxas -v and prints, as markdown: ptxas's report for the kernel
#       (registers, stack frame, spills, shared memory), the kernel's launch
#       facts (BUILD_DIR/tools/bench_gemm/bench_gemm --info, default build/),
#       and the SASS instruction mix (cuobjdump -sass). docs/perf.md is its output.
#   tools/perf_report.sh --check BINARY [CUOBJDUMP]
#       the ctest check (sass_gemm_sm100) of a built binary: no stack frame and
#       no local memory (so no spills), no LDL/STL, and the tcgen05 MMA, commit,
#       TMEM load and allocation and the TMA load present in the SASS.
#       Exit 0: all hold; 1: one does not (named); 77: no cuobjdump (skipped).
# cuobjdump calls nvdisasm beside it; tools/setup.sh installs both from PyPI
# where the CUDA install lacks them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

find_cuobjdump() {
  local c
  for c in "${1:-}" "$(command -v cuobjdump || true)" "$root/build/.cuda-tools/nvidia/cu13/bin/cuobjdump" \
           /usr/local/cuda/bin/cuobjdump; do
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return; fi
  done
}

# Opcode counts of a SASS listing: the mnemonic without its modifiers, predicates dropped.
opcodes() {
  grep -E '^\s+/\*[0-9a-f]{4,}\*/' | sed -E 's#^\s+/\*[0-9a-f]+\*/\s+##; s#^@!?U?P[T0-9]+\s+##' |
    awk '{print $1}' | sed -E 's/;$//' | sort | uniq -c | sort -rn
}

if [ "${1:-}" = "--check" ]; then
  binary=$2
  cuobjdump=$(find_cuobjdump "${3:-}")
  if [ -z "$cuobjdump" ]; then echo "SKIPPED: cuobjdump not found"; exit 77; fi
  PATH="$(dirname "$cuobjdump"):$PATH"
  usage=$("$cuobjdump" -res-usage "$binary" | grep -A1 'Function _ZN5tcgen4gemm11gemm_kernel' | grep REG || true)
  sass=$("$cuobjdump" -sass "$binary")
  bad=0
  echo "resources: $usage"
  [ -n "$usage" ] || { echo "MISSING the gemm_kernel in $binary"; exit 1; }
  grep -q 'STACK:0 ' <<<"$usage" || { echo "FAIL: a stack frame"; bad=1; }
  grep -q 'LOCAL:0 ' <<<"$usage" || { echo "FAIL: local memory (spills)"; bad=1; }
  if grep -Eq '\b(LDL|STL)\b' <<<"$sass"; then echo "FAIL: local memory traffic (LDL/STL) in the SASS"; bad=1; fi
  for op in UTCHMMA UTCBAR LDTM UTCATOMSWS UTMALDG SYNCS.PHASECHK; do
    if grep -q "$op" <<<"$sass"; then echo "found   $op"; else echo "MISSING $op"; bad=1; fi
  done
  exit $bad
fi

build="${1:-$root/build}"
nvcc="${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
cuobjdump=$(find_cuobjdump)
[ -x "$nvcc" ] || { echo "perf_report.sh: nvcc not found (set CUDACXX)" >&2; exit 1; }
[ -n "$cuobjdump" ] || { echo "perf_report.sh: cuobjdump not found (tools/setup.sh installs it)" >&2; exit 1; }
PATH="$(dirname "$cuobjdump"):$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

includes=()
for lib in core layout tmem mma model exec gemm; do includes+=(-I"$root/$lib/include"); done
command=(nvcc -std=c++20 -O3 -DNDEBUG --expt-relaxed-constexpr -gencode=arch=compute_100a,code=sm_100a
         -Xptxas -v -c tools/bench_gemm/main.cu)
(cd "$root" && "$nvcc" "${command[@]:1}" "${includes[@]}" -o "$tmp/bench.o") 2>"$tmp/ptxas.txt"
ptxas=$(awk '/Compiling entry function .*gemm_kernel/ {on=1} on && /ptxas info|bytes stack frame/ {print} /Used [0-9]+ registers/ && on {exit}' "$tmp/ptxas.txt")
sass=$("$cuobjdump" -sass "$tmp/bench.o")
version=$("$nvcc" --version | tail -1)

echo "### ptxas -v (${version})"
echo
echo '```'
sed -E 's/^[[:space:]]+//' <<<"$ptxas"
echo '```'
echo
if [ -x "$build/tools/bench_gemm/bench_gemm" ]; then
  echo "### The kernel (bench_gemm --info)"
  echo
  echo '```'
  "$build/tools/bench_gemm/bench_gemm" --info
  echo '```'
  echo
fi
mix=$(opcodes <<<"$sass")
# count of the opcodes matching an extended regex, and which they are
count() { awk -v re="$1" '$2 ~ re {n += $1; names = names (names ? ", " : "") "`" $2 "`"} END {printf "| %d | %s |", n, names}' <<<"$mix"; }
echo "### SASS instruction mix (cuobjdump -sass: $(grep -cE '^\s+/\*[0-9a-f]{4,}\*/' <<<"$sass") instructions)"
echo
echo "| PTX | count | SASS |"
echo "|---|---:|---|"
echo "| tcgen05.mma.cta_group::1.kind::f16 $(count '^UTC[A-Z]MMA')"
echo "| tcgen05.commit (to an mbarrier) $(count '^UTCBAR')"
echo "| tcgen05.ld.sync.aligned.32x32b $(count '^LDTM')"
echo "| tcgen05.alloc / dealloc $(count '^UTCATOMSWS')"
echo "| cp.async.bulk.tensor.2d (TMA load) $(count '^UTMALDG')"
echo "| mbarrier init / arrive / expect_tx / try_wait $(count '^SYNCS')"
echo "| elect.sync $(count '^ELECT')"
echo "| cvt.rn.bf16x2.f32 $(count '^F2FP')"
echo "| st.global / ld.global (D, C) $(count '^(STG|LDG)')"
echo "| ld.shared / st.shared (TMEM address, mbarrier init) $(count '^(LDS|STS)')"
echo "| bar.sync $(count '^BAR')"
echo "| local memory (spills) $(count '^(LDL|STL)')"
echo
echo "<details><summary>every opcode</summary>"
echo
echo "| count | opcode |"
echo "|---:|---|"
awk '{printf "| %d | `%s` |\n", $1, $2}' <<<"$mix"
echo
echo "</details>"
