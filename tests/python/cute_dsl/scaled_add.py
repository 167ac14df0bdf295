"""A CuTe DSL kernel of tcgen's own: C = alpha * A + B over a 2-D tensor
(A fp16, B and C fp32) tiled 16 x 32 per CTA with CuTe's zipped_divide,
each thread a column of four rows, out-of-bounds elements masked through
an identity (coordinate) tensor. CuTe DSL compiles it for sm_100a and
launches it from its JIT-compiled host code; under tcgen run that code
binds tcgen's CuTe DSL runtime and the kernel's PTX runs on the host model.
Checked against numpy in fp64, at a shape that is no multiple of the tile.
With --unmasked the mask is left out: the last tiles read past A, a fault
that tcgen run reports at this file's line (CUTE_DSL_LINEINFO)."""
import sys

import cutlass
import cutlass.cute as cute
import numpy as np
from cutlass.cute.runtime import from_dlpack

from row_report import report
from tcgen_device import DeviceArray  # run/python: tcgen run puts it on the path

TILE = (16, 32)


@cute.kernel
def scaled_add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor, cC: cute.Tensor, shape: cute.Shape,
                      alpha: cutlass.Float32, masked: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    tile = ((None, None), bidx)
    a, b, c, coord = gA[tile], gB[tile], gC[tile], cC[tile]
    col = tidx % 32
    for i in cutlass.range_constexpr(4):
        row = tidx // 32 + 4 * i
        if cute.elem_less(coord[row, col], shape) or not masked:
            c[row, col] = alpha * a[row, col].to(cutlass.Float32) + b[row, col]  # reads past A when unmasked


@cute.jit
def scaled_add(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, alpha: cutlass.Float32, masked: cutlass.Constexpr):
    gA, gB, gC = (cute.zipped_divide(m, TILE) for m in (mA, mB, mC))
    cC = cute.zipped_divide(cute.make_identity_tensor(mC.shape), TILE)
    scaled_add_kernel(gA, gB, gC, cC, mC.shape, alpha, masked).launch(grid=[cute.size(gC, mode=[1]), 1, 1],
                                                             block=[128, 1, 1])


def main():
    M, N = 50, 100
    rng = np.random.default_rng(4)
    a = rng.standard_normal((M, N)).astype(np.float16)
    b = rng.standard_normal((M, N)).astype(np.float32)
    da, db, dc = DeviceArray(a), DeviceArray(b), DeviceArray.zeros((M, N), np.float32)
    alpha = 0.75
    tensors = [from_dlpack(d) for d in (da, db, dc)]
    if not all("@gmem" in str(t) for t in tensors):  # DLPack's kDLCUDA: global memory, not generic
        print(f"FAILED: the DSL did not type the device arrays as global memory: {tensors}")
        return False
    scaled_add(*tensors, alpha, "--unmasked" not in sys.argv)
    want = alpha * a.astype(np.float64) + b.astype(np.float64)
    return report(f"CuTe DSL scaled add {M}x{N}", dc.numpy(), want, 1e-6)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
