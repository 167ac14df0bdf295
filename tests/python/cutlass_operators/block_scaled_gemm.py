"""nvidia-cutlass-operators' sm100 block-scaled GEMMs (CuTe DSL, PyPI) under `tcgen run`, found and run
through the package's own API: MXFP8 (e4m3 values, e8m0 scales per 32 along K) and NVFP4 (e2m1 values,
e4m3 scales per 16), C = (scale_A·A)(scale_B·B)ᵀ in fp32, checked against numpy in fp64.

    block_scaled_gemm.py [PATTERN...]

Values are small integers and scales powers of two, so C is exact in fp32 and must equal the fp64
product bit for bit. The scales are stored in the 128x4 tiled layout of cuBLAS's "1D Block Scaling
Factors Layout" (ScaleSwizzleMode.Swizzle32x4x4), written here from that document, not from tcgen.
Like dense_gemm.py, torch tensors are views of tcgen_device arrays and TVM FFI stays off.
"""
import argparse
import ctypes
import os
import re
import sys

os.environ.setdefault("CUTLASS_OPERATORS_USE_TVM_FFI", "0")
os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)  # tcgen's: first on the library path under tcgen run
import numpy as np  # noqa: E402
import torch  # noqa: E402
from tcgen_device import DeviceArray  # noqa: E402
import cutlass.operators as ops  # noqa: E402
from cutlass.operators.arguments.operand import ScaledOperand, ScaleMode, ScaleSwizzleMode  # noqa: E402
from row_report import report  # noqa: E402

M, N, K = 256, 256, 256
# format: (values' torch dtype, scales' torch dtype, scale block along K, operator-name pattern)
FORMATS = {
    "mxfp8": (torch.float8_e4m3fn, torch.float8_e8m0fnu, 32, r"AFloat8E4M3FN_.*_2cta_cluster2x1x1_tile128x64x128"),
    "nvfp4": (torch.float4_e2m1fn_x2, torch.float8_e4m3fn, 16, r"AFloat4E2M1FN_.*_2cta_cluster2x1x1_tile128x64x256"),
}
E2M1 = {0.0: 0, 0.5: 1, 1.0: 2, 1.5: 3, 2.0: 4, 3.0: 5, 4.0: 6, 6.0: 7}  # OCP MX spec's FP4 (E2M1) codes


def tiled_128x4(scales):
    """The scale matrix (rows, blocks) in cuBLAS's 128x4 tiled layout: 512-byte tiles of 128 rows x 4
    blocks, row tiles outer; inside one, row r's block c at (r % 32)·16 + (r % 128 // 32)·4 + c % 4."""
    rows, cols = scales.shape
    tiles_c = -(-cols // 4)
    out = np.zeros(-(-rows // 128) * 128 * tiles_c * 4, np.uint8)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    out[((r // 128) * tiles_c + c // 4) * 512 + (r % 32) * 16 + (r % 128) // 32 * 4 + c % 4] = scales
    return out


def encode(values, dtype):
    """Bytes of float values in `dtype` (torch's CPU conversion for 8-bit, the E2M1 table for 4-bit,
    two per byte, the even element in the low nibble)."""
    if dtype is torch.float4_e2m1fn_x2:
        codes = np.vectorize(lambda v: E2M1[abs(v)] | (8 if v < 0 else 0))(values).astype(np.uint8)
        return codes[:, 0::2] | (codes[:, 1::2] << 4)
    return torch.from_numpy(values.astype(np.float32)).to(dtype).view(torch.uint8).numpy()


def run(name, pattern_override, rng):
    value_type, scale_type, block, pattern = FORMATS[name]
    qa, qb = rng.integers(-3, 4, (M, K)).astype(np.float64), rng.integers(-3, 4, (N, K)).astype(np.float64)
    sa, sb = 2.0 ** rng.integers(-1, 2, (M, K // block)), 2.0 ** rng.integers(-1, 2, (N, K // block))
    arrays = [DeviceArray(encode(qa, value_type)), DeviceArray(encode(qb, value_type)),
              DeviceArray(tiled_128x4(encode(sa, scale_type))), DeviceArray(tiled_128x4(encode(sb, scale_type))),
              DeviceArray.zeros((M, N), np.float32)]
    a, b, scale_a, scale_b, out = (torch.from_dlpack(x) for x in arrays)
    mode = ScaleMode.Blockwise1x16 if block == 16 else ScaleMode.Blockwise1x32
    operand_a = ScaledOperand(a.view(value_type), scale_a.view(scale_type), mode, ScaleSwizzleMode.Swizzle32x4x4)
    operand_b = ScaledOperand(b.view(value_type).t(), scale_b.view(scale_type), mode, ScaleSwizzleMode.Swizzle32x4x4)
    args = ops.GemmArguments(operand_a, operand_b, out, accumulator_type=torch.float32)
    found = ops.get_operators(args, target_sm="100a")
    chosen = next((o for o in found if re.search(pattern_override or pattern, o.metadata.operator_name)), None)
    if chosen is None:
        print(f"{name}: none of the {len(found)} operators found matches {pattern_override or pattern}: FAILED")
        return False
    chosen.run(args)
    torch.cuda.synchronize()
    want = (qa * np.repeat(sa, block, axis=1)) @ (qb * np.repeat(sb, block, axis=1)).T
    return report(chosen.metadata.operator_name, arrays[4].numpy(), want, 0.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", choices=sorted(FORMATS), action="append", help="default: every format")
    ap.add_argument("--pattern", help="an operator-name regular expression instead of the format's own")
    a = ap.parse_args()
    rng = np.random.default_rng(11)
    ok = all([run(name, a.pattern, rng) for name in a.format or sorted(FORMATS)])
    print("PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
