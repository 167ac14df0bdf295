"""NVIDIA's CuTe DSL Blackwell dense GEMM example, run without torch: its
DenseGemmKernel, imported from the example file as it is, on fp16 operands
in device memory from tcgen's cuMemAlloc, checked against numpy in fp64.
Under `tcgen run` the kernel runs on the host model (docs/run.md).

    tcgen run -- python3 tools/cute_dsl/dense_gemm.py EXAMPLE [--mnkl M,N,K,L]
        [--mma_tiler_mn M,N] [--cluster_shape_mn M,N] [--use_2cta_instrs] [--use_tma_store]

EXAMPLE is examples/python/CuTeDSL/cute/blackwell/kernel/dense_gemm/dense_gemm.py
of NVIDIA/cutlass (4.5 and later). A, B and C are K-, K- and N-major, as the
example's defaults; C = A Bᵀ per batch l, in fp32.
"""
import argparse
import ctypes
import importlib.util
import os
import sys

import cuda.bindings.driver as cuda
import cutlass
import cutlass.cute as cute
import numpy as np
from cutlass.cute.runtime import from_dlpack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
from row_report import report  # noqa: E402
from tcgen_device import DeviceArray  # noqa: E402  (run/python: tcgen run puts it on the path)


def pair(text):
    return tuple(int(x) for x in text.split(","))


def cute_tensor(array, leading_dim):
    """A CuTe tensor (M, K, L)-ordered over a DeviceArray stored (L, M, K): a numpy view of device memory."""
    ctype = {np.float16: ctypes.c_uint16, np.float32: ctypes.c_float}[array.dtype.type]
    view = np.ctypeslib.as_array(ctypes.cast(array.data_ptr(), ctypes.POINTER(ctype)), shape=array.shape)
    view = view.view(array.dtype).transpose(1, 2, 0)
    return from_dlpack(view, assumed_align=16).mark_layout_dynamic(leading_dim=leading_dim)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("example")
    parser.add_argument("--mnkl", type=pair, default=(256, 256, 128, 1))
    parser.add_argument("--mma_tiler_mn", type=pair, default=(128, 128))
    parser.add_argument("--cluster_shape_mn", type=pair, default=(1, 1))
    parser.add_argument("--use_2cta_instrs", action="store_true")
    parser.add_argument("--use_tma_store", action="store_true")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("dense_gemm_example", args.example)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)

    m, n, k, l = args.mnkl
    rng = np.random.default_rng(5)
    a = rng.integers(-2, 3, (l, m, k)).astype(np.float16)  # small integers, as the example's own inputs
    b = rng.integers(-2, 3, (l, n, k)).astype(np.float16)
    da, db, dc = DeviceArray(a), DeviceArray(b), DeviceArray.zeros((l, m, n), np.float32)
    ta, tb, tc = (cute_tensor(d, 1) for d in (da, db, dc))
    ta.element_type = tb.element_type = cutlass.Float16
    tc.element_type = cutlass.Float32
    gemm = example.DenseGemmKernel(cutlass.Float32, args.use_2cta_instrs, args.mma_tiler_mn, args.cluster_shape_mn,
                                   args.use_tma_store)
    if not gemm.can_implement(ta, tb, tc):
        raise SystemExit(f"the example cannot implement this configuration: {vars(args)}")
    stream = cuda.CUstream(0)
    compiled = cute.compile(gemm, ta, tb, tc, stream)
    compiled(ta, tb, tc, stream)
    want = np.einsum("lmk,lnk->lmn", a.astype(np.float64), b.astype(np.float64))
    name = (f"CuTe DSL dense GEMM {m}x{n}x{k}x{l}, tiler {args.mma_tiler_mn}, cluster {args.cluster_shape_mn}, "
            f"{'2' if args.use_2cta_instrs else '1'}-CTA MMA{', TMA store' if args.use_tma_store else ''}")
    return report(name, dc.numpy().reshape(-1, n), want.reshape(-1, n), 1e-6)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
