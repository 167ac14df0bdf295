#!/usr/bin/env python3
"""cuDNN's fused attention on the problem table of bench_fmha (main.cu), for comparison.

Times torch.nn.functional.scaled_dot_product_attention with the cuDNN backend
forced (torch.nn.attention.sdpa_kernel(SDPBackend.CUDNN_ATTENTION)) on a B200:
CUDA events around single calls after a warm-up (queued behind
torch.cuda._sleep, so they run back to back), the median of --iters calls,
TFLOP/s with bench_fmha's formula (FmhaProblem::flops(): 4 * head_dim per
(query, key) pair the mask lets through). The arrays are [batch, heads, seq,
head_dim], the scale PyTorch's default 1/sqrt(head_dim), both as in bench_fmha.
Causal problems use is_causal=True, which PyTorch aligns to the top-left
corner and tcgen (FlashAttention's convention) to the bottom-right: the two
agree only where seq_q == seq_k, so only square causal problems are timed
(the table has no others). The columns are bench_fmha's, so compare.sh can
join the two.

The table and the FLOP formula are written here again (this script needs no
build); where the bench_fmha binary is present (--bench, default
build/tools/bench_fmha/bench_fmha under the repository root) they are first
checked against `bench_fmha --list` with the same options: dtype, head_dim,
batch, heads, seq_q, seq_k, mask and GFLOP (to the 0.1 it prints) of every row.
A difference is an error (exit 1). --check-table does only that check (exit
77 without the binary), with no GPU or PyTorch.

  cudnn_sdpa.py [--quick] [--dtype bf16|fp16] [--head-dim 64|128|256]
                [--mask none|causal] [--seq S] [--batch B] [--heads H]
                [--heads-kv G] [--iters N] [--warmup W]      as bench_fmha
                [--bench PATH] [--check-table]

Exit 0: ran; 1: an error, a non-finite output or a table unlike bench_fmha's;
2: a bad option; 77: not measured (no PyTorch, no CUDA, no sm_100 GPU, no
cuDNN backend), with "cuDNN: not measured (<reason>)".
"""
import argparse
import os
import subprocess
import sys


def not_measured(reason):
    print(f"cuDNN: not measured ({reason})")
    sys.exit(77)


def flops(p):
    """FmhaProblem::flops() (fmha/src/problem.cpp) for the masks of the table."""
    pairs = 0
    for i in range(p["seq_q"]):
        diagonal = i + p["seq_k"] - p["seq_q"]
        end = min(p["seq_k"], diagonal + 1) if p["causal"] else p["seq_k"]
        pairs += max(0, end)
    return 4.0 * p["head_dim"] * pairs * p["batch"] * p["heads"]


def problems(a):
    """bench_fmha's table() (main.cu), filtered by the same options."""
    seqs = [a.seq] if a.seq else ([1024] if a.quick else [1024, 2048, 4096, 8192])
    out = []
    for dtype in ("bf16", "fp16"):
        if a.dtype and a.dtype != dtype:
            continue
        for d in (64, 128, 256):
            if a.head_dim and a.head_dim != d:
                continue
            for causal in (False, True):
                if a.mask and a.mask != ("causal" if causal else "none"):
                    continue
                for seq in seqs:
                    heads = a.heads or 16
                    batch = a.batch or (1 if a.quick else max(1, 16384 // seq))
                    out.append(dict(dtype=dtype, head_dim=d, causal=causal, batch=batch, heads=heads,
                                    heads_kv=a.heads_kv or heads, seq_q=seq, seq_k=seq))
    return out


def check_table(ap, a, table):
    """None where `bench --list` (same options) lists the same rows as `table`, else what differs.
    Options bench_fmha refuses (exit 2) are refused here too."""
    args = [a.bench, "--list"] + (["--quick"] if a.quick else [])
    for opt in ("dtype", "head_dim", "mask", "seq", "batch", "heads", "heads_kv"):
        if getattr(a, opt):
            args += ["--" + opt.replace("_", "-"), str(getattr(a, opt))]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode == 2:
        ap.error(f"bench_fmha refuses the options: {(run.stdout + run.stderr).strip()}")
    if run.returncode != 0:
        return f"{' '.join(args)} exited {run.returncode}: {(run.stdout + run.stderr).strip()}"
    theirs = [line.split() for line in run.stdout.splitlines()[1:] if line.strip()]
    ours = [key(p).split() + ["%.1f" % (flops(p) * 1e-9)] for p in table]
    for i in range(max(len(ours), len(theirs))):
        mine = " ".join(ours[i]) if i < len(ours) else "(none)"
        bench = " ".join(theirs[i]) if i < len(theirs) else "(none)"
        if mine != bench:
            return f"row {i + 1} of {len(theirs)}: here {mine!r}, {a.bench} --list {bench!r}"
    return None


def key(p):
    return "%-5s %3d %6d %5d %6d %6d  %-7s" % (p["dtype"], p["head_dim"], p["batch"], p["heads"], p["seq_q"],
                                                p["seq_k"], "causal" if p["causal"] else "none")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--dtype", choices=["bf16", "fp16"])
    ap.add_argument("--head-dim", type=int, choices=[64, 128, 256])
    ap.add_argument("--mask", choices=["none", "causal"])
    for name in ("--seq", "--batch", "--heads", "--heads-kv"):
        ap.add_argument(name, type=int, default=0)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--bench", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build",
                                                    "tools", "bench_fmha", "bench_fmha"))
    ap.add_argument("--check-table", action="store_true")
    a = ap.parse_args()
    if min(a.seq, a.batch, a.heads, a.heads_kv) < 0 or a.iters <= 0 or a.warmup < 0:
        ap.error("sizes and counts are positive")
    if a.quick:
        a.iters = min(a.iters, 5)
    table = problems(a)
    for p in table:
        if p["heads"] % p["heads_kv"]:
            ap.error(f"heads_kv = {p['heads_kv']} does not divide heads = {p['heads']}")
    if os.access(a.bench, os.X_OK):
        diff = check_table(ap, a, table)
        if diff:
            print(f"FAILED: the table or FLOPs here differ from bench_fmha's ({diff}); "
                  "keep problems() and flops() in step with main.cu")
            return 1
        if a.check_table:
            print(f"table: {len(table)} problems, the same rows and GFLOP as {a.bench} --list")
            return 0
    elif a.check_table:
        print(f"table: not checked ({a.bench} is not built)")
        return 77

    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        not_measured(f"PyTorch is not importable: {e}")
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = SDPBackend.CUDNN_ATTENTION
    except (ImportError, AttributeError) as e:
        not_measured(f"PyTorch {torch.__version__} has no torch.nn.attention SDPBackend.CUDNN_ATTENTION: {e}")
    if not torch.cuda.is_available():
        not_measured(f"PyTorch {torch.__version__} sees no CUDA device (built with CUDA {torch.version.cuda})")
    cc = torch.cuda.get_device_capability(0)
    if cc != (10, 0):
        not_measured(f"needs an sm_100 GPU, found sm_{cc[0]}{cc[1]} ({torch.cuda.get_device_name(0)})")
    if not torch.backends.cudnn.is_available():
        not_measured(f"PyTorch {torch.__version__} has no cuDNN")

    torch.manual_seed(0)
    print(f"{torch.cuda.get_device_name(0)}, {torch.cuda.get_device_properties(0).multi_processor_count} SMs; "
          f"cuDNN SDPA (PyTorch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}), "
          f"median of {a.iters} calls after {a.warmup} warm-up")
    print()
    print("dtype   D  batch heads  seq_q  seq_k  mask       time_ms  cuDNN TFLOP/s")
    ok = True
    for p in table:
        dt = torch.bfloat16 if p["dtype"] == "bf16" else torch.float16
        shape_q = (p["batch"], p["heads"], p["seq_q"], p["head_dim"])
        shape_kv = (p["batch"], p["heads_kv"], p["seq_k"], p["head_dim"])
        q = torch.empty(shape_q, device="cuda", dtype=dt).uniform_(-2, 2)
        k = torch.empty(shape_kv, device="cuda", dtype=dt).uniform_(-2, 2)
        v = torch.empty(shape_kv, device="cuda", dtype=dt).uniform_(-1, 1)
        extra = {"enable_gqa": True} if p["heads_kv"] != p["heads"] else {}

        def call():
            return F.scaled_dot_product_attention(q, k, v, is_causal=p["causal"], **extra)

        try:
            with sdpa_kernel(backend):
                for _ in range(a.warmup):
                    out = call()
                torch.cuda.synchronize()
                starts = [torch.cuda.Event(enable_timing=True) for _ in range(a.iters)]
                stops = [torch.cuda.Event(enable_timing=True) for _ in range(a.iters)]
                # The GPU spins while Python queues the calls, so each pair of
                # events times the kernel, not Python's time between two calls.
                if hasattr(torch.cuda, "_sleep"):
                    torch.cuda._sleep(50_000_000 + 2_000_000 * a.iters)
                for s, e in zip(starts, stops):
                    s.record()
                    out = call()
                    e.record()
                torch.cuda.synchronize()
        except RuntimeError as e:  # the cuDNN backend refuses the problem (or fails)
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"{key(p)}    not run  ({reason[:120]})")
            continue
        times = sorted(s.elapsed_time(e) * 1e-3 for s, e in zip(starts, stops))
        n = len(times)
        seconds = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
        print("%s %10.4f  %8.1f" % (key(p), seconds * 1e3, flops(p) / seconds * 1e-12))
        if not torch.isfinite(out).all():
            print("FAILED: non-finite values in cuDNN's output")
            ok = False
        del q, k, v, out
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
