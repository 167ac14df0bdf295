"""NVIDIA's CuTe DSL GEMMs from nvidia-cutlass-operators (PyPI), found and run through the package's
own discover/compile/execute API, as its users do, under `tcgen run`; checked against numpy in fp64.

    dense_gemm.py [--mnk M,N,K] [PATTERN...]

Each PATTERN (a regular expression; by default one per sm100 kernel family and scheduler below) picks
the first operator whose name matches among those `get_operators` returns for target sm_100a and
C = A·B, B fp16 and A fp16 (int8 for the mixed-input kernel), C fp32, fp32 accumulation; B is
N-major, or K-major for the kernels that take only that. The inputs are small integers, so every
product and sum is exact in fp32: C must equal the fp64 product bit for bit.

The package imports torch at module level and takes torch tensors only. torch's own kernels carry no
PTX, so none runs: the tensors are torch.from_dlpack views of tcgen_device arrays, and torch binds to
tcgen's libcudart, loaded before it (docs/run.md). The kernels are compiled without TVM FFI, which
needs functions tcgen's CuTe DSL runtime library does not provide.
"""
import argparse
import ctypes
import os
import re
import sys

os.environ.setdefault("CUTLASS_OPERATORS_USE_TVM_FFI", "0")
os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")  # its torch extension probes torch.cuda on import
ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)  # tcgen's: first on the library path under tcgen run
import numpy as np  # noqa: E402
import torch  # noqa: E402
from tcgen_device import DeviceArray  # noqa: E402
import cutlass.operators as ops  # noqa: E402
from row_report import report  # noqa: E402

FAMILIES = [
    r"PersistentDenseGemmOperator_.*_1cta_cluster1x1x1_tile128x64x64_schedulerSTATIC_PERSISTENT",  # 1-CTA MMA
    r"PersistentDenseGemmOperator_.*_2cta_cluster2x1x1_tile256x128x64_schedulerCLC",  # CTA pairs, CLC scheduler
    r"PersistentDenseGemmOperator_.*_2cta_cluster2x2x1_tile128x32x64_schedulerCLC",  # TMA multicast over 2x2
    r"PersistentDenseGemmPreferredClusterOperator_.*_preferred2x2x1_fallback2x1x1",  # preferred cluster shape
    r"PersistentDenseGemmEFCOperator_.*_2cta_cluster2x1x1_tile128x32x64",  # the epilogue-fusion kernel
    r"TgvGemmOperator_sm100_tnt_.*_tile64x8x128",  # the low-latency (TGV) kernel: K-major B only
    r"MixedInputGemmOperator_sm100_convert_tnt_AInt8_.*_1cta_cluster1x1x1",  # int8 A converted in the kernel
    r"Sm80TensorOpGemmOperator_ttt_",  # an Ampere kernel get_operators offers for sm_100a too: mma.sync
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnk", default="256,256,128", help="problem size M,N,K")
    ap.add_argument("patterns", nargs="*", default=FAMILIES)
    a = ap.parse_args()
    m, n, k = (int(v) for v in a.mnk.split(","))
    rng = np.random.default_rng(7)
    host_a = rng.integers(-3, 4, (m, k))
    host_b = rng.integers(-3, 4, (n, k)).astype(np.float16)  # Bᵀ: B K-major is its transposed view
    want = host_a.astype(np.float64) @ host_b.astype(np.float64).T
    a_arrays = {"_AInt8_": DeviceArray(host_a.astype(np.int8)), "": DeviceArray(host_a.astype(np.float16))}
    b_arrays = {"_tnt_": DeviceArray(host_b), "": DeviceArray(np.ascontiguousarray(host_b.T))}
    ok = True
    found = {}
    for pattern in a.patterns:
        a_key = next(key for key in a_arrays if key in pattern)  # "" matches: every pattern finds one
        b_key = next(key for key in b_arrays if key in pattern)
        out = DeviceArray.zeros((m, n), np.float32)
        b = torch.from_dlpack(b_arrays[b_key])
        args = ops.GemmArguments(torch.from_dlpack(a_arrays[a_key]), b.t() if b_key else b, torch.from_dlpack(out),
                                 accumulator_type=torch.float32)
        if (a_key, b_key) not in found:
            found[a_key, b_key] = ops.get_operators(args, target_sm="100a")
        candidates = found[a_key, b_key]
        chosen = next((o for o in candidates if re.search(pattern, o.metadata.operator_name)), None)
        if chosen is None:
            print(f"{pattern}: none of the {len(candidates)} operators found matches: FAILED")
            ok = False
            continue
        chosen.run(args)
        torch.cuda.synchronize()
        ok = report(chosen.metadata.operator_name, out.numpy(), want, 0.0) and ok
    print("PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
