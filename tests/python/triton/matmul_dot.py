"""A Triton tl.dot GEMM (fp16 in, fp32 accumulate) compiled by Triton for
sm_100a and launched by Triton's own launcher; under tcgen run its PTX runs
on the host model (tcgen05.mma from Triton's lowering of tl.dot). Checked
against numpy in fp64, at a size that is no multiple of the tile."""
import sys

import numpy as np
import triton
import triton.language as tl

from row_report import report
from tcgen_device import DeviceArray  # run/python: tcgen run puts it on the path


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def main():
    M, N, K = 200, 136, 160
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    da, db, dc = DeviceArray(a), DeviceArray(b), DeviceArray.zeros((M, N), np.float32)
    BM, BN, BK = 128, 128, 64
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    matmul[grid](da, db, dc, M, N, K, *da.stride(), *db.stride(), *dc.stride(), BM=BM, BN=BN, BK=BK)
    want = a.astype(np.float64) @ b.astype(np.float64)
    return report(f"tl.dot GEMM {M}x{N}x{K} fp16 -> fp32", dc.numpy(), want, 1e-5)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
