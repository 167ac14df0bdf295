#!/usr/bin/env bash
# check_sass.sh PROGRAM [CUOBJDUMP]: the sm_100a SASS of PROGRAM (the MMA
# atoms test, tests/device/mma_atoms_sm100.cu) holds the instruction ptxas
# emits for each tcgen05.mma and tcgen05.commit form the test instantiates.
# Exit 0: all found; 1: one is missing (named); 77: no cuobjdump (skipped).
set -euo pipefail

program=$1
cuobjdump=${2:-cuobjdump}
if ! command -v "$cuobjdump" >/dev/null 2>&1; then
  echo "SKIPPED: cuobjdump not found"
  exit 77
fi
# cuobjdump runs nvdisasm, which sits beside it.
PATH="$(dirname "$(command -v "$cuobjdump")"):$PATH"
sass=$("$cuobjdump" -sass "$program")

# What ptxas 13.0 emits (cuobjdump -sass, observed on the test's kernels):
#   UTC{H,Q,I,O}MMA[.2CTA|.WS|.4X] A, gdesc[B], tmem[D], tmem[..], idesc[..]{, tmem[scales]}, enable-input-d
# H: kind::f16 and tf32, Q: f8f6f4 and mxf8f6f4, I: i8, O: mxf4 and mxf4nvf4;
# A is gdesc[..] (SS) or tmem[..] (TS); enable-input-d is a uniform predicate
# (!UPT on the first K step, UPT after); the block-scaled forms carry the
# scale-factor TMEM addresses after the idesc. tcgen05.commit is UTCBAR.
plain='idesc\[[^]]*\], !?U?P'   # no scale operands after the idesc
scaled='idesc\[[^]]*\], tmem'
# pattern (extended regex on one SASS line) | what it is
expected=(
  "UTCHMMA gdesc.*$plain|tcgen05.mma.cta_group::1.kind::f16 / kind::tf32, A from shared memory (SS)"
  "UTCHMMA tmem.*$plain|tcgen05.mma.cta_group::1.kind::f16, A from Tensor Memory (TS)"
  "UTCHMMA\.2CTA gdesc|tcgen05.mma.cta_group::2.kind::f16 SS"
  "UTCHMMA\.2CTA tmem|tcgen05.mma.cta_group::2.kind::f16 TS"
  "UTCHMMA\.WS gdesc|tcgen05.mma.ws.cta_group::1.kind::f16 SS"
  "UTCHMMA\.WS tmem|tcgen05.mma.ws.cta_group::1.kind::f16 TS"
  "UTCQMMA gdesc.*$plain|tcgen05.mma.cta_group::1.kind::f8f6f4 SS"
  "UTCQMMA tmem.*$plain|tcgen05.mma.cta_group::1.kind::f8f6f4 TS"
  "UTCQMMA\.2CTA gdesc.*$plain|tcgen05.mma.cta_group::2.kind::f8f6f4 SS"
  "UTCIMMA gdesc|tcgen05.mma.cta_group::1.kind::i8 SS"
  "UTCIMMA tmem|tcgen05.mma.cta_group::1.kind::i8 TS"
  "UTCQMMA gdesc.*$scaled|tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X SS"
  "UTCQMMA tmem.*$scaled|tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X TS"
  "UTCQMMA\.2CTA gdesc.*$scaled|tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X SS"
  "UTCOMMA gdesc.*$scaled|tcgen05.mma.cta_group::1.kind::mxf4 / mxf4nvf4.block_scale.scale_vec::2X SS"
  "UTCOMMA\.4X gdesc.*$scaled|tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X SS"
  "UTCOMMA\.4X tmem.*$scaled|tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X TS"
  "UTCBAR \[|tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"
  "UTCBAR\.MULTICAST|tcgen05.commit.cta_group::1 ... .multicast::cluster.b64 with ctaMask"
  "UTCBAR\.2CTA \[|tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64"
  "UTCBAR\.2CTA\.MULTICAST|tcgen05.commit.cta_group::2 ... .multicast::cluster.b64 with ctaMask"
)

missing=0
for entry in "${expected[@]}"; do
  pattern=${entry%%|*}
  what=${entry#*|}
  if grep -Eq "$pattern" <<<"$sass"; then
    echo "found   /$pattern/ ($what)"
  else
    echo "MISSING /$pattern/ ($what)"
    missing=1
  fi
done
exit $missing
