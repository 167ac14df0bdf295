#!/usr/bin/env bash
# perf_report.sh: what ptxas and the SASS say about the sm_100a kernels: the
# GEMM of tools/bench_gemm (tcgen::gemm, bf16 -> bf16, tile 128x256, 4 stages)
# and the FMHA forward kernels of tools/bench_fmha (fmha_kernel<Fmha<E, D>>,
# bf16 and fp16, head_dim 64, 128, 256).
#
#   tools/perf_report.sh [BUILD_DIR]
#       compiles tools/bench_gemm/main.cu and tools/bench_fmha/main.cu as
#       CMake does (-O3, sm_100a) with -Xptxas -v and prints, as markdown, for
#       each: ptxas's report for the kernels (registers, stack frame, spills,
#       shared memory), the kernels' launch facts (BUILD_DIR/tools/bench_*/
#       bench_* --info, default build/, where built), and the SASS instruction
#       mix (cuobjdump -sass of the compiled object; for the FMHA that of
#       Fmha<bf16, 128>, and a summary line per instantiation). docs/perf.md,
#       below its line, is its output.
#   tools/perf_report.sh --check BINARY [CUOBJDUMP]
#       the ctest check (sass_gemm_sm100) of a built binary: no stack frame and
#       no local memory (so no spills), no LDL/STL, and the tcgen05 MMA, commit,
#       TMEM load and allocation and the TMA load present in the SASS.
#       Exit 0: all hold; 1: one does not (named); 77: no cuobjdump (skipped).
#   tools/perf_report.sh --check-pair BINARY [CUOBJDUMP]
#       the same for the CTA-pair GEMM (Config .cta_group = 2; ctest
#       sass_gemm_pair_sm100, on the tcgen CLI): no stack frame, no local
#       memory, and the pair forms: UTCHMMA.2CTA, UTCBAR.2CTA.MULTICAST,
#       UTMALDG.2D.2CTA (and .MULTICAST), UTCATOMSWS.2CTA, with LDTM, the cluster barrier
#       UCGABAR_ARV / UCGABAR_WAIT and clusterlaunchcontrol's UGETNEXTWORKID.
#   tools/perf_report.sh --check-fmha BINARY [CUOBJDUMP]
#       the ctest check (sass_fmha_sm100) of a built bench_fmha: all six FMHA
#       instantiations present, and each has no stack frame and no local
#       memory, no LDL/STL, and in its SASS the SS-MMA (S = Q·Kᵀ, UTCHMMA with
#       A from a shared-memory descriptor), the TS-MMA (O += P·V, UTCHMMA with
#       A from TMEM), the commit (UTCBAR), TMEM load and store (LDTM, STTM),
#       the TMA load (UTMALDG) and exp2 (MUFU.EX2). Exit codes as --check.
#   tools/perf_report.sh --check-sparse-decode BINARY [CUOBJDUMP]
#       the ctest check (sass_sparse_decode_sm100) of a built
#       bench_sparse_decode: the sparse decode kernel has no stack frame and
#       no local memory, and its SASS holds the MMAs (UTCHMMA), the commits
#       (UTCBAR), the 16x32bx2 TMEM loads and the stores of the rescale (LDTM,
#       STTM), the TMA load of Q (UTMALDG), the e4m3 → f16 unpacking
#       (F2FP.F16.E4M3.UNPACK_B) and exp2 (MUFU.EX2). Exit codes as --check.
#   tools/perf_report.sh --check-moe BINARY [CUOBJDUMP]
#       the ctest check (sass_moe_sm100, on the tcgen CLI) of the grouped
#       block-scaled GEMM (tcgen::moe, SwiGLU): no stack frame and no local
#       memory, and in its SASS the block-scaled MMA (UTCQMMA, its scale
#       factors' two TMEM operands), the factors' copy to TMEM
#       (UTCCP.T.S.4x32dp128bit: tcgen05.cp.32x128b.warpx4), the commit
#       (UTCBAR), the TMEM load (LDTM) and the TMA load (UTMALDG). Exit codes as --check.
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

# The whole opcode count of a listing (opcodes' output), folded away in the report.
every_opcode() {
  echo "<details><summary>every opcode</summary>"
  echo
  echo "| count | opcode |"
  echo "|---:|---|"
  awk '{printf "| %d | `%s` |\n", $1, $2}' <<<"$1"
  echo
  echo "</details>"
}

# check_kernel BINARY CUOBJDUMP PATTERN OPCODE...: the first kernel whose
# mangled name matches PATTERN has no stack frame, no local memory and no
# LDL/STL, and its SASS holds each OPCODE. Exits as --check says.
check_kernel() {
  local binary=$1 cuobjdump pattern=$3 kernel usage sass bad=0 op
  cuobjdump=$(find_cuobjdump "$2")
  if [ -z "$cuobjdump" ]; then echo "SKIPPED: cuobjdump not found"; exit 77; fi
  PATH="$(dirname "$cuobjdump"):$PATH"
  shift 3
  kernel=$("$cuobjdump" -res-usage "$binary" | grep -oE "Function $pattern" | head -1 | sed 's/^Function //' || true)
  [ -n "$kernel" ] || { echo "MISSING a kernel matching $pattern in $binary"; exit 1; }
  usage=$("$cuobjdump" -res-usage "$binary" | grep -A1 "Function $kernel" | grep REG || true)
  sass=$("$cuobjdump" -sass -fun "$kernel" "$binary" 2>/dev/null)
  echo "resources: $usage"
  grep -q 'STACK:0 ' <<<"$usage" || { echo "FAIL: a stack frame"; bad=1; }
  grep -q 'LOCAL:0 ' <<<"$usage" || { echo "FAIL: local memory (spills)"; bad=1; }
  if grep -Eq '\b(LDL|STL)\b' <<<"$sass"; then echo "FAIL: local memory traffic (LDL/STL) in the SASS"; bad=1; fi
  for op in "$@"; do
    if grep -q "$op" <<<"$sass"; then echo "found   $op"; else echo "MISSING $op"; bad=1; fi
  done
  exit $bad
}

if [ "${1:-}" = "--check" ]; then
  check_kernel "$2" "${3:-}" '_ZN5tcgen4gemm11gemm_kernel[A-Za-z0-9_]*' UTCHMMA UTCBAR LDTM UTCATOMSWS UTMALDG SYNCS.PHASECHK
fi
if [ "${1:-}" = "--check-pair" ]; then
  # The Config's last member, cta_group, is the last template argument: ...ELi2EE.
  check_kernel "$2" "${3:-}" '_ZN5tcgen4gemm11gemm_kernel[A-Za-z0-9_]*ELi2EEEE[A-Za-z0-9_]*' UTCHMMA.2CTA \
    UTCBAR.2CTA.MULTICAST UTMALDG.2D.2CTA UTMALDG.2D.MULTICAST.2CTA UTCATOMSWS.2CTA LDTM UCGABAR_ARV UCGABAR_WAIT \
    UGETNEXTWORKID
fi
if [ "${1:-}" = "--check-moe" ]; then
  # Config{.swiglu = true}: ...ELb1ELi6EEEE, the SwiGLU flag then the stages.
  check_kernel "$2" "${3:-}" '_ZN5tcgen3moe19grouped_gemm_kernel[A-Za-z0-9_]*ELb1ELi6EEEE[A-Za-z0-9_]*' \
    'UTCQMMA gdesc\[[A-Z0-9]*\], gdesc\[[A-Z0-9]*\], tmem\[[A-Z0-9]*\], tmem\[[A-Z0-9]*\], idesc\[[A-Z0-9]*\], tmem' \
    UTCCP.T.S.4x32dp128bit UTCBAR LDTM UTMALDG.2D
fi
if [ "${1:-}" = "--check-sparse-decode" ]; then
  check_kernel "$2" "${3:-}" '_ZN5tcgen13sparse_decode20sparse_decode_kernel[A-Za-z0-9_]*' UTCHMMA UTCBAR LDTM.16dp32bit STTM \
    UTMALDG F2FP.F16.E4M3.UNPACK_B MUFU.EX2
fi

# The FMHA kernels' mangled names (fmha_kernel<Fmha<ElementType E, int D>>) in a
# cuobjdump -res-usage listing, and the "bf16, 128" of one (E: 0 bf16, 1 fp16).
fmha_kernels() { { grep -oE 'Function _ZN5tcgen4fmha11fmha_kernel[A-Za-z0-9_]*' || true; } | sed 's/^Function //'; }
fmha_label() {
  sed -E 's/.*ElementTypeE([0-9]+)ELi([0-9]+)E.*/\1 \2/' <<<"$1" |
    awk '{printf "%s, %s", ($1 == 0 ? "bf16" : $1 == 1 ? "fp16" : "ElementType " $1), $2}'
}
# One function's part of a cuobjdump -sass listing.
function_sass() { awk -v n="$1" '/Function : / {on = ($3 == n)} on'; }
# The tcgen05.mma forms: A from a shared-memory descriptor (SS) or from TMEM (TS).
mma_ss() { grep -cE 'UTC[A-Z]*MMA[A-Z0-9.]*\s+gdesc\[' || true; }
mma_ts() { grep -cE 'UTC[A-Z]*MMA[A-Z0-9.]*\s+tmem\[' || true; }
instructions() { grep -cE '^\s+/\*[0-9a-f]{4,}\*/' || true; }

if [ "${1:-}" = "--check-fmha" ]; then
  binary=$2
  cuobjdump=$(find_cuobjdump "${3:-}")
  if [ -z "$cuobjdump" ]; then echo "SKIPPED: cuobjdump not found"; exit 77; fi
  PATH="$(dirname "$cuobjdump"):$PATH"
  usage=$("$cuobjdump" -res-usage "$binary")
  sass=$("$cuobjdump" -sass "$binary")
  kernels=$(fmha_kernels <<<"$usage")
  [ -n "$kernels" ] || { echo "MISSING: no fmha_kernel in $binary"; exit 1; }
  bad=0
  labels=""
  for k in $kernels; do
    label=$(fmha_label "$k")
    labels+="[$label]"
    res=$(grep -A1 "Function $k:" <<<"$usage" | tail -1 | sed -E 's/^[[:space:]]+//')
    ks=$(function_sass "$k" <<<"$sass")
    echo "Fmha<$label>: $(instructions <<<"$ks") instructions; $res"
    grep -q 'STACK:0 ' <<<"$res" || { echo "  FAIL: a stack frame"; bad=1; }
    grep -q 'LOCAL:0 ' <<<"$res" || { echo "  FAIL: local memory (spills)"; bad=1; }
    if grep -Eq '\b(LDL|STL)\b' <<<"$ks"; then echo "  FAIL: local memory traffic (LDL/STL) in the SASS"; bad=1; fi
    found=()
    ss=$(mma_ss <<<"$ks") ts=$(mma_ts <<<"$ks")
    if [ "$ss" -gt 0 ]; then found+=("UTCHMMA-SS($ss)"); else echo "  MISSING UTCHMMA with A in SMEM (SS, S = Q·Kᵀ)"; bad=1; fi
    if [ "$ts" -gt 0 ]; then found+=("UTCHMMA-TS($ts)"); else echo "  MISSING UTCHMMA with A in TMEM (TS, O += P·V)"; bad=1; fi
    for op in UTCBAR LDTM STTM UTMALDG MUFU.EX2; do
      n=$(grep -cF "$op" <<<"$ks" || true)
      if [ "$n" -gt 0 ]; then found+=("$op($n)"); else echo "  MISSING $op"; bad=1; fi
    done
    echo "  found ${found[*]}"
  done
  for want in "bf16, 64" "bf16, 128" "bf16, 256" "fp16, 64" "fp16, 128" "fp16, 256"; do
    [[ "$labels" == *"[$want]"* ]] || { echo "MISSING the instantiation Fmha<$want> in $binary"; bad=1; }
  done
  [ "$bad" = 0 ] && echo "PASS: every FMHA kernel has no stack, no local memory, and the tcgen05, TMA and exp2 instructions"
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
for dir in "$root"/*/include; do includes+=(-I"$dir"); done
flags=(-std=c++20 -O3 -DNDEBUG --expt-relaxed-constexpr -gencode=arch=compute_100a,code=sm_100a -Xptxas -v -c)
(cd "$root" && "$nvcc" "${flags[@]}" tools/bench_gemm/main.cu "${includes[@]}" -o "$tmp/bench.o") 2>"$tmp/ptxas.txt"
(cd "$root" && "$nvcc" "${flags[@]}" tools/bench_fmha/main.cu "${includes[@]}" -o "$tmp/fmha.o") 2>"$tmp/ptxas_fmha.txt"
ptxas=$(awk '/Compiling entry function .*gemm_kernel/ {on=1} on && /ptxas info|bytes stack frame/ {print} /Used [0-9]+ registers/ && on {exit}' "$tmp/ptxas.txt")
sass=$("$cuobjdump" -sass "$tmp/bench.o")
version=$("$nvcc" --version | tail -1)

# count of the opcodes of $mix matching an extended regex, and which they are
count() { awk -v re="$1" '$2 ~ re {n += $1; names = names (names ? ", " : "") "`" $2 "`"} END {printf "| %d | %s |", n, names}' <<<"$mix"; }

echo "## The GEMM (tools/bench_gemm)"
echo
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
every_opcode "$mix"
echo

# The FMHA: every instantiation's ptxas report and SASS summary, the full mix of Fmha<bf16, 128>.
fmha_sass=$("$cuobjdump" -sass "$tmp/fmha.o")
fmha_names=$("$cuobjdump" -res-usage "$tmp/fmha.o" | fmha_kernels)
[ -n "$fmha_names" ] || { echo "perf_report.sh: no fmha_kernel in tools/bench_fmha/main.cu's object" >&2; exit 1; }
# "label<TAB>name" lines, bf16 before fp16, by head_dim
sorted=$(for k in $fmha_names; do printf '%s\t%s\n' "$(fmha_label "$k")" "$k"; done | sort -t, -k1,1 -k2,2n)
echo "## The FMHA (tools/bench_fmha)"
echo
echo "### ptxas -v (${version})"
echo
echo "| Fmha<E, D> | registers | stack frame | spill stores | spill loads | static smem | barriers |"
echo "|---|---:|---:|---:|---:|---:|---:|"
while IFS=$'\t' read -r label k; do
  awk -v n="$k" -v label="$label" '
    index($0, "Compiling entry function '"'"'" n "'"'"'") {on = 1; next}
    on && /bytes stack frame/ {stack = $1; stores = $5; loads = $9}
    on && /Used [0-9]+ registers/ {
      match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15)
      bars = "-"; if (match($0, /used [0-9]+ barriers/)) bars = substr($0, RSTART + 5, RLENGTH - 14)
      smem = 0; if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11)
      printf "| %s | %s | %s | %s | %s | %s | %s |\n", label, regs, stack, stores, loads, smem, bars; exit
    }' "$tmp/ptxas_fmha.txt"
done <<<"$sorted"
echo
echo "<details><summary>ptxas's lines</summary>"
echo
echo '```'
awk '/Compiling entry function .*fmha_kernel/ {on = 1} /Compiling entry function/ && !/fmha_kernel/ {on = 0}
     on && /ptxas info|bytes stack frame/ && !/Compile time/' "$tmp/ptxas_fmha.txt" | sed -E 's/^[[:space:]]+//'
echo '```'
echo
echo "</details>"
echo
if [ -x "$build/tools/bench_fmha/bench_fmha" ]; then
  echo "### The kernels (bench_fmha --info)"
  echo
  echo '```'
  "$build/tools/bench_fmha/bench_fmha" --info
  echo '```'
  echo
fi
echo "### SASS of each instantiation (cuobjdump -sass)"
echo
echo "| Fmha<E, D> | instructions | UTCHMMA SS | UTCHMMA TS | UTCBAR | LDTM | STTM | UTMALDG | MUFU.EX2 | STG | LDL/STL |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
while IFS=$'\t' read -r label k; do
  ks=$(function_sass "$k" <<<"$fmha_sass")
  mix=$(opcodes <<<"$ks")
  n() { awk -v re="$1" '$2 ~ re {n += $1} END {print n + 0}' <<<"$mix"; }
  echo "| $label | $(instructions <<<"$ks") | $(mma_ss <<<"$ks") | $(mma_ts <<<"$ks") | $(n '^UTCBAR') | $(n '^LDTM') |" \
       "$(n '^STTM') | $(n '^UTMALDG') | $(n '^MUFU\.EX2') | $(n '^STG') | $(n '^(LDL|STL)') |"
done <<<"$sorted"
echo
k=$(awk -F'\t' '$1 == "bf16, 128" {print $2}' <<<"$sorted")
ks=$(function_sass "$k" <<<"$fmha_sass")
mix=$(opcodes <<<"$ks")
echo "### SASS instruction mix of Fmha<bf16, 128> ($(instructions <<<"$ks") instructions)"
echo
echo "| PTX | count | SASS |"
echo "|---|---:|---|"
echo "| tcgen05.mma.cta_group::1.kind::f16, SS: S = Q·Kᵀ (A and B in SMEM) | $(mma_ss <<<"$ks") | \`UTCHMMA gdesc[A], gdesc[B], tmem[D]\` |"
echo "| tcgen05.mma.cta_group::1.kind::f16, TS: O += P·V (A = P in TMEM) | $(mma_ts <<<"$ks") | \`UTCHMMA tmem[A], gdesc[B], tmem[D]\` |"
echo "| tcgen05.commit (to an mbarrier) $(count '^UTCBAR')"
echo "| tcgen05.ld.sync.aligned.32x32b (S, O) $(count '^LDTM')"
echo "| tcgen05.st.sync.aligned.32x32b (P, rescaled O) $(count '^STTM')"
echo "| tcgen05.alloc / dealloc $(count '^UTCATOMSWS')"
echo "| tcgen05.wait::st $(count '^FENCE\.VIEW\.ASYNC\.T')"
echo "| fence.mbarrier_init $(count '^FENCE\.VIEW\.ASYNC\.S')"
echo "| cp.async.bulk.tensor.3d (TMA load: Q, K, V) $(count '^UTMALDG')"
echo "| mbarrier init / arrive / expect_tx / try_wait $(count '^SYNCS')"
echo "| elect.sync $(count '^ELECT')"
echo "| ex2.approx (P = 2^(x·scale·log2e − max)) $(count '^MUFU\.EX2')"
echo "| other MUFU (rcp: 1/l, integer division) $(count '^MUFU\.[^E]')"
echo "| f32 arithmetic (scale, maximum, row sum, O rescale, division) $(count '^(FMUL|FFMA|FADD|FMNMX|FSEL|FSETP)')"
echo "| cvt.rn.bf16x2.f32 (P, O) $(count '^F2FP')"
echo "| vote (any_sync: skip the O rescale) $(count '^VOTE')"
echo "| st.global (O, LSE) / ld.global $(count '^(STG|LDG)')"
echo "| ld.shared / st.shared (row factors, 1/l, TMEM address) $(count '^(LDS|STS)')"
echo "| uniform registers parked in vector registers (not memory) $(count '^(MOV\.SPILL|R2UR\.FILL)')"
echo "| bar.sync $(count '^BAR')"
echo "| local memory (spills) $(count '^(LDL|STL)')"
echo
every_opcode "$mix"
echo

# The sparse decode kernel and its combine step: ptxas's report and the SASS mix.
(cd "$root" && "$nvcc" "${flags[@]}" sparse_decode/src/sparse_decode_kernels.cu "${includes[@]}" -o "$tmp/sparse.o") 2>"$tmp/ptxas_sparse.txt"
sparse_sass=$("$cuobjdump" -sass "$tmp/sparse.o")
echo "## The sparse decode (sparse_decode/src/sparse_decode_kernels.cu, as bench_sparse_decode links it)"
echo
echo "### ptxas -v (${version})"
echo
echo '```'
awk '/Compiling entry function .*sparse_decode/ {on = 1} /Compiling entry function/ && !/sparse_decode/ {on = 0}
     on && /ptxas info|bytes stack frame/ && !/Compile time/' "$tmp/ptxas_sparse.txt" | sed -E 's/^[[:space:]]+//'
echo '```'
echo
k=$("$cuobjdump" -res-usage "$tmp/sparse.o" | grep -oE 'Function _ZN5tcgen13sparse_decode20sparse_decode_kernel[A-Za-z0-9_]*' |
    head -1 | sed 's/^Function //')
ks=$(function_sass "$k" <<<"$sparse_sass")
mix=$(opcodes <<<"$ks")
echo "### SASS instruction mix of sparse_decode_kernel<SparseDecode> ($(instructions <<<"$ks") instructions)"
echo
echo "| PTX | count | SASS |"
echo "|---|---:|---|"
echo "| tcgen05.mma.cta_group::1.kind::f16, SS (S = Q·Kᵀ, O += P·V) $(count '^UTC[A-Z]*MMA')"
echo "| tcgen05.commit (to an mbarrier) $(count '^UTCBAR')"
echo "| tcgen05.ld.sync.aligned.16x32bx2 (S, O) $(count '^LDTM')"
echo "| tcgen05.st.sync.aligned.16x32bx2 (rescaled O) $(count '^STTM')"
echo "| tcgen05.alloc / dealloc $(count '^UTCATOMSWS')"
echo "| cp.async.bulk.tensor.2d (TMA load: Q) $(count '^UTMALDG')"
echo "| ld.global (the gathered keys, their scales, the indices) $(count '^LDG')"
echo "| cvt.rn.f16x2.e4m3x2 (dequantisation) $(count '^F2FP\.F16\.E4M3')"
echo "| cvt.f32.f16 (the e4m3 values widened) $(count '^HADD2\.F32')"
echo "| cvt.rn.bf16x2.f32 (keys, P, O) $(count '^F2FP\.BF16')"
echo "| st.shared (the keys tile, P) / ld.shared $(count '^(STS|LDS)')"
echo "| fence.proxy.async, fence.mbarrier_init, tcgen05.wait::st $(count '^FENCE\.VIEW\.ASYNC')"
echo "| mbarrier init / arrive / try_wait $(count '^SYNCS')"
echo "| shfl.sync (a head's two halves) $(count '^SHFL')"
echo "| ex2.approx (P) $(count '^MUFU\.EX2')"
echo "| st.global (O, LSE, or the split's) $(count '^STG')"
echo "| local memory (spills) $(count '^(LDL|STL)')"
echo
every_opcode "$mix"
