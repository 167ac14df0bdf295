"""A Triton attention forward (flash attention: S = Q Kᵀ, online softmax,
O = P V, both products tl.dot) compiled by Triton for sm_100a and launched
by Triton's own launcher; under tcgen run its PTX runs on the host model.
Checked against numpy's softmax(Q Kᵀ · scale) V in fp64, causal and not,
with a key length that is no multiple of the tile."""
import math
import sys

import numpy as np
import triton
import triton.language as tl

from row_report import report
from tcgen_device import DeviceArray  # run/python: tcgen run puts it on the path


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, seq_q, seq_k, scale,
              D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, CAUSAL: tl.constexpr):
    head, block = tl.program_id(1), tl.program_id(0)
    rm = block * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + head * seq_q * D + rm[:, None] * D + rd[None, :], mask=rm[:, None] < seq_q, other=0.0)
    m = tl.full((BM,), float("-inf"), tl.float32)
    l = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, seq_k, BN):
        rn = start + tl.arange(0, BN)
        k = tl.load(k_ptr + head * seq_k * D + rn[:, None] * D + rd[None, :], mask=rn[:, None] < seq_k, other=0.0)
        v = tl.load(v_ptr + head * seq_k * D + rn[:, None] * D + rd[None, :], mask=rn[:, None] < seq_k, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        keep = rn[None, :] < seq_k
        if CAUSAL:
            keep = keep & (rn[None, :] <= rm[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        alpha = tl.exp(m - m_new)
        p = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m = m_new
    tl.store(o_ptr + head * seq_q * D + rm[:, None] * D + rd[None, :], acc / l[:, None], mask=rm[:, None] < seq_q)


def reference(q, k, v, scale, causal):
    s = np.einsum("hmd,hnd->hmn", q, k) * scale
    if causal:
        s = np.where(np.arange(k.shape[1])[None, :] <= np.arange(q.shape[1])[:, None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hmn,hnd->hmd", p / p.sum(-1, keepdims=True), v)


def run(causal):
    heads, seq_q, seq_k, D = 2, 128, 200, 64
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((heads, n, D)).astype(np.float16) for n in (seq_q, seq_k, seq_k))
    if causal:  # every query sees at least its own key
        seq_k = seq_q
        k, v = k[:, :seq_q].copy(), v[:, :seq_q].copy()
    dq, dk, dv = DeviceArray(q), DeviceArray(k), DeviceArray(v)
    do = DeviceArray.zeros((heads, seq_q, D), np.float32)
    scale = 1.0 / math.sqrt(D)
    attention[(triton.cdiv(seq_q, 128), heads)](dq, dk, dv, do, seq_q, seq_k, scale, D=D, BM=128, BN=64, CAUSAL=causal)
    want = reference(*(x.astype(np.float64) for x in (q, k, v)), scale, causal)
    # P is rounded to fp16 before P V, as FlashAttention does: a relative error near fp16's 2^-11.
    return report(f"attention heads {heads}, {seq_q} x {seq_k}, head_dim {D}{', causal' if causal else ''}",
                  do.numpy().reshape(-1, D), want.reshape(-1, D), 4e-3)


if __name__ == "__main__":
    sys.exit(0 if all([run(False), run(True)]) else 1)
