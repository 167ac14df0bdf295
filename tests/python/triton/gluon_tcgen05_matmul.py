"""A Gluon matmul on tcgen05 with TMA: C = A Bᵀ (A [M, K], B [N, K], both
fp16, K-major), operand tiles loaded by TMA into NVMMA-swizzled shared
memory through a two-stage mbarrier ring, tcgen05.mma into a TMEM
accumulator, the accumulator read back with tcgen05.ld and stored by a TMA
store. Triton compiles it for sm_100a and encodes the tensor maps on the
host (cuTensorMapEncodeTiled); under tcgen run its PTX runs on the host
model. Checked against numpy in fp64."""
import sys

import numpy as np
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, allocate_tensor_memory,
                                                                fence_async_shared, mbarrier, tcgen05_mma, tma)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

from row_report import report
from tcgen_device import DeviceArray  # run/python: tcgen run puts it on the path


@gluon.jit
def matmul(a_desc, b_desc, c_desc, STAGES: gl.constexpr, num_warps: gl.constexpr):
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    k_blocks = gl.cdiv(a_desc.shape[1], BK)
    off_m = gl.program_id(0) * BM
    off_n = gl.program_id(1) * BN

    a_smem = gl.allocate_shared_memory(a_desc.dtype, [STAGES] + a_desc.block_type.shape, a_desc.layout)
    b_smem = gl.allocate_shared_memory(b_desc.dtype, [STAGES] + b_desc.block_type.shape, b_desc.layout)
    loaded = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    consumed = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(loaded.index(i), count=1)
        mbarrier.init(consumed.index(i), count=1)
    acc = allocate_tensor_memory(gl.float32, [BM, BN], TensorMemoryLayout([BM, BN], col_stride=1))

    for i in gl.static_range(STAGES):  # fill the ring
        if i < k_blocks:
            mbarrier.expect(loaded.index(i), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_load(a_desc, [off_m, i * BK], loaded.index(i), a_smem.index(i))
            tma.async_load(b_desc, [off_n, i * BK], loaded.index(i), b_smem.index(i))
    for k in range(k_blocks):
        s = k % STAGES
        phase = (k // STAGES) & 1
        mbarrier.wait(loaded.index(s), phase)
        tcgen05_mma(a_smem.index(s), b_smem.index(s).permute((1, 0)), acc, use_acc=k > 0, mbarriers=[consumed.index(s)])
        if k + STAGES < k_blocks:  # refill the stage once its MMA has read it
            mbarrier.wait(consumed.index(s), phase)
            mbarrier.expect(loaded.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_load(a_desc, [off_m, (k + STAGES) * BK], loaded.index(s), a_smem.index(s))
            tma.async_load(b_desc, [off_n, (k + STAGES) * BK], loaded.index(s), b_smem.index(s))
    # The last MMA's barrier arrives when it, and every MMA before it, is complete.
    last = k_blocks - 1
    mbarrier.wait(consumed.index(last % STAGES), (last // STAGES) & 1)

    c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    c_smem.store(acc.load())
    fence_async_shared()
    tma.async_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)


def main():
    M, N, K = 256, 128, 320
    BM, BN, BK = 128, 128, 64
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    da, db, dc = DeviceArray(a), DeviceArray(b), DeviceArray.zeros((M, N), np.float32)
    f16 = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
    f32 = gl.NVMMASharedLayout.get_default_for([BM, BN], gl.float32)
    a_desc = TensorDescriptor(da, [M, K], list(da.stride()), [BM, BK], f16)
    b_desc = TensorDescriptor(db, [N, K], list(db.stride()), [BN, BK], f16)
    c_desc = TensorDescriptor(dc, [M, N], list(dc.stride()), [BM, BN], f32)
    matmul[(M // BM, N // BN)](a_desc, b_desc, c_desc, STAGES=2, num_warps=4)
    want = a.astype(np.float64) @ b.astype(np.float64).T
    return report(f"Gluon tcgen05 + TMA matmul {M}x{N}x{K} fp16 -> fp32", dc.numpy(), want, 1e-5)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
