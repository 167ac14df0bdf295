"""FlashAttention-4's sm100 forward kernel (FlashAttentionForwardSm100 of the
flash-attn-4 package, flash_attn/cute/flash_fwd_sm100.py), run as FA4's own
interface.py would build and launch it, on Q, K and V in device memory from
tcgen's cuMemAlloc, checked against softmax(Q Kᵀ · scale) V and its
log-sum-exp in fp64. Under `tcgen run` the kernel runs on the host model
(docs/run.md).

    tcgen run -- python3 tools/cute_dsl/fa4_forward.py [--flash-attn-root DIR] [--causal]
        [--batch B] [--heads H] [--heads-kv HK] [--seqlen-q SQ] [--seqlen-k SK] [--dtype bf16|fp16]
        [--head-dim D (128; others untried)] [--bound B] [--lse-bound B]

DIR holds the flash_attn package (default: wherever Python finds it); FA4's
modules import torch and quack, which must be importable (PYTHONPATH). Torch
is imported, never used: Q, K, V, O and LSE are numpy views of tcgen's device
memory given to CuTe DSL through DLPack, and the launch is on the null stream.
Torch's CUDA build links NVIDIA's libcudart.so.13 (through RPATH), which cannot
run on tcgen's driver and must not be asked anything:
- FA4 is imported first, before CuTe DSL and cuda-python: torch then loads
  NVIDIA's libcudart.so.13 by its RPATH and its libraries bind their runtime
  calls to it. Imported later, torch's libraries would find tcgen's runtime of
  that name already loaded (tcgen run's sitecustomize loads it for
  cuda.bindings.runtime) and fail on symbols tcgen's runtime does not define
  (cudaLaunchCooperativeKernel).
- Two packages call torch.cuda.is_available() when imported, which initialises
  NVIDIA's runtime against tcgen's driver (tcgen run stops the program at its
  cuGetExportTable); their own switches turn that off (set below unless already
  set): TVM_FFI_DISABLE_TORCH_C_DLPACK=1 (tvm_ffi's optional torch DLPack
  extension) and QUACK_ARCH=sm_100a (quack's device query; its documented
  override for machines without a GPU).

The configuration is interface.py's _flash_attn_fwd for sm100 with dense
(not varlen, not paged) inputs, head_dim = head_dim_v, one split, no score or
mask mods: tiles 128x128, q_stage 2 when there is more than one 128-row tile of
queries, PackGQA when heads > heads_kv, 2-CTA MMAs for non-causal head_dim 128
with more than one Q block, static persistent scheduling where interface.py
chooses it, S ping-pong with one Q stage. Causal masks are bottom-right aligned
(key j is seen by query i when j <= i + SK - SQ), as FlashAttention's are.
"""
import argparse
import ctypes
import importlib
import math
import os
import sys
import time
import warnings

os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
os.environ.setdefault("QUACK_ARCH", "sm_100a")


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flash-attn-root", help="the folder holding the flash_attn package")
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--heads-kv", type=int, default=None)
    parser.add_argument("--seqlen-q", type=int, default=256)
    parser.add_argument("--seqlen-k", type=int, default=None)
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    parser.add_argument("--bound", type=float, default=1e-2, help="largest row error of O, relative to the row")
    # LSE is fp32 throughout (no bf16 rounding); FA4's exp2 is partly a cubic polynomial (rel. error 9e-5).
    parser.add_argument("--lse-bound", type=float, default=1e-4, help="largest absolute error of LSE")
    args = parser.parse_args()
    args.heads_kv = args.heads_kv or args.heads
    args.seqlen_k = args.seqlen_k or args.seqlen_q
    return args


ARGS = parse_args()
if ARGS.flash_attn_root:
    sys.path.insert(0, os.path.abspath(ARGS.flash_attn_root))
# FA4 (and with it torch) before CuTe DSL and cuda-python: see above.
fa4 = importlib.import_module("flash_attn.cute.flash_fwd_sm100")
fa4_utils = importlib.import_module("flash_attn.cute.utils")

import cuda.bindings.driver as cuda  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
import numpy as np  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
from row_report import report  # noqa: E402
from tcgen_device import DeviceArray  # noqa: E402  (run/python: tcgen run puts it on the path)

TILE_M = TILE_N = 128


def to_bf16_bits(x):
    """fp32 -> bf16 bit patterns (uint16), rounded to nearest even."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


DTYPES = {  # name: (CuTe type, to device bits, from device bits)
    "bf16": (cutlass.BFloat16, to_bf16_bits, from_bf16_bits),
    "fp16": (cutlass.Float16, lambda x: x.astype(np.float16).view(np.uint16),
             lambda b: b.view(np.float16).astype(np.float32)),
}


def cute_tensor(array, element_type, assumed_align):
    """A CuTe tensor over a DeviceArray, as FA4's to_cute_tensor makes it from a torch tensor: a numpy
    view of the device memory through DLPack, the last mode contiguous, the others dynamic."""
    ctype = {np.uint16: ctypes.c_uint16, np.float32: ctypes.c_float}[array.dtype.type]
    view = np.ctypeslib.as_array(ctypes.cast(array.data_ptr(), ctypes.POINTER(ctype)), shape=array.shape)
    tensor = from_dlpack(view.view(array.dtype), assumed_align=assumed_align)
    tensor.element_type = element_type
    return tensor.mark_layout_dynamic(leading_dim=len(array.shape) - 1)


def reference(q, k, v, scale, causal):
    """O (b, sq, h, d) and LSE (b, h, sq) in fp64; a row that sees no key gives O = 0, LSE = -inf."""
    b, sq, h, _ = q.shape
    sk, hk = k.shape[1], k.shape[2]
    o = np.zeros((b, sq, h, v.shape[-1]))
    lse = np.full((b, h, sq), -np.inf)
    seen = np.ones((sq, sk), bool)
    if causal:
        seen = np.arange(sk)[None, :] <= np.arange(sq)[:, None] + (sk - sq)
    for bi in range(b):
        for hi in range(h):
            kv = hi // (h // hk)
            s = q[bi, :, hi].astype(np.float64) @ k[bi, :, kv].astype(np.float64).T * scale
            s = np.where(seen, s, -np.inf)
            rows = seen.any(axis=1)
            m = np.where(rows, s.max(axis=1), 0.0)
            p = np.exp(s - m[:, None])
            total = p.sum(axis=1)
            o[bi, rows, hi] = (p[rows] / total[rows, None]) @ v[bi, :, kv].astype(np.float64)
            lse[bi, hi, rows] = m[rows] + np.log(total[rows])
    return o, lse


def fwd_config(args, utils):
    """interface.py's _flash_attn_fwd choices for sm100, dense inputs, head_dim = head_dim_v = args.head_dim."""
    qhead_per_kvhead = args.heads // args.heads_kv
    pack_gqa = qhead_per_kvhead > 1
    seqlen_q_packgqa = args.seqlen_q * (qhead_per_kvhead if pack_gqa else 1)
    q_stage = 2 if seqlen_q_packgqa > TILE_M and args.head_dim != 256 else 1
    max_m_blocks_leq_one = seqlen_q_packgqa <= q_stage * TILE_M
    use_2cta_instrs = (not utils._get_disable_2cta_default(is_fwd=True) and not max_m_blocks_leq_one
                       and (TILE_M % qhead_per_kvhead == 0 or not pack_gqa)
                       and not args.causal and math.ceil(args.head_dim / 16) * 16 in (128, 192))
    use_clc_scheduler = utils._get_use_clc_scheduler_default() and args.causal  # off for dense non-causal
    is_static_persistent = (not args.causal) or (max_m_blocks_leq_one and not (use_2cta_instrs and args.causal))
    use_s_ping_pong = (not utils._get_disable_s_ping_pong_default() and q_stage == 1
                       and args.head_dim in (64, 128, 256))
    return dict(qhead_per_kvhead=qhead_per_kvhead, is_causal=args.causal, is_local=False, is_split_kv=False,
                pack_gqa=pack_gqa, m_block_size=TILE_M, n_block_size=TILE_N, q_stage=q_stage,
                is_static_persistent=is_static_persistent, use_2cta_instrs=use_2cta_instrs,
                use_clc_scheduler=use_clc_scheduler, use_s_ping_pong=use_s_ping_pong)


def main(args):
    utils = fa4_utils
    b, h, hk, sq, sk, d = args.batch, args.heads, args.heads_kv, args.seqlen_q, args.seqlen_k, args.head_dim
    element_type, to_bits, from_bits = DTYPES[args.dtype]
    rng = np.random.default_rng(7)
    bits = [to_bits(rng.standard_normal(shape, np.float32)) for shape in ((b, sq, h, d), (b, sk, hk, d), (b, sk, hk, d))]
    q, k, v = (from_bits(x) for x in bits)  # the values the kernel reads
    dq, dk, dv = (DeviceArray(x) for x in bits)
    do = DeviceArray(np.full((b, sq, h, d), 0xFFFF, np.uint16))  # NaN where the kernel writes nothing
    dlse = DeviceArray(np.full((b, h, sq), np.nan, np.float32))
    tq, tk, tv, to = (cute_tensor(x, element_type, 16) for x in (dq, dk, dv, do))
    tlse = cute_tensor(dlse, cutlass.Float32, 4)
    scale = 1.0 / math.sqrt(d)
    config = fwd_config(args, utils)
    kernel = fa4.FlashAttentionForwardSm100(d, d, **config)
    stream = cuda.CUstream(0)
    # interface.py's argument list for sm100: q, k, v, out, lse, softmax_scale, cu_seqlens_q/k, seqused_q/k,
    # page_table, window_size_left/right, learnable_sink, descale_tensors, block-sparse tensors, AuxData,
    # the scheduler's tensors (num_splits_dynamic, tile_count_semaphore, virtual_batch_idx, num_nheads_in_l2,
    # cu_total_m_blocks, cu_total_splits_m_blocks, blocks_to_batch_idx), max_seqlen_q, then the stream.
    call = [tq, tk, tv, to, tlse, scale, None, None, None, None, None, None, None, None, None, None,
            utils.AuxData(None, None), None, None, None, None, None, None, None, sq]
    # Without TVM FFI (interface.py compiles with --enable-tvm-ffi) the DSL warns that AuxData, a NamedTuple,
    # is no JitArgument; it is a compile-time constant here (no aux tensors or scalars).
    warnings.filterwarnings("ignore", message="Argument aux_data .* cannot be converted to a JitArgument")
    start = time.perf_counter()
    compiled = cute.compile(kernel, *call, stream)
    compiled_at = time.perf_counter()
    compiled(*call, stream)
    got_o = from_bits(do.numpy()).astype(np.float64)
    got_lse = dlse.numpy().astype(np.float64)
    ran_at = time.perf_counter()

    want_o, want_lse = reference(q, k, v, scale, args.causal)
    chosen = ", ".join(f"{key}={value}" for key, value in config.items() if key not in ("m_block_size", "n_block_size"))
    name = (f"FA4 forward (FlashAttentionForwardSm100) {args.dtype}, batch {b}, heads {h}/{hk}, {sq} queries x {sk} keys, "
            f"head_dim {d}, {'causal' if args.causal else 'not causal'} [{chosen}]")
    print(f"{name}\n  compile {compiled_at - start:.1f} s, launch and copy back {ran_at - compiled_at:.1f} s on the host")
    ok = report("  O", got_o.reshape(-1, d), want_o.reshape(-1, d), args.bound)
    finite = np.isfinite(want_lse)
    lse_error = np.abs(got_lse[finite] - want_lse[finite]).max()
    lse_ok = bool(lse_error <= args.lse_bound) and bool(np.all(got_lse[~finite] == -np.inf))
    print(f"  LSE: largest error {lse_error:.3g} (bound {args.lse_bound:g}): {'PASSED' if lse_ok else 'FAILED'}")
    return ok and lse_ok


if __name__ == "__main__":
    sys.exit(0 if main(ARGS) else 1)
