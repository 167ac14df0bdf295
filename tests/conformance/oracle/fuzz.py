"""Differential fuzzing: seeded random straight-line PTX programs (4-12 instructions) over value
forms, written as multi-instruction templates of the conformance table (README.md), so run_vectors
runs them like any row. Later instructions read earlier results; every intermediate register is a
destination the runner compares, so a disagreement names the first instruction that went wrong.
The expected values come from the same oracle functions as the table (fops for floats, plain
integer arithmetic from the ISA's definitions), step by step.

    fuzz.py --programs N --seed S [--inputs K] --out FILE
        [--runner build/tests/conformance/run_vectors]   # also run it and print the counts

A float step whose result is NaN is redrawn: NaN payloads are not fixed by the ISA, and a NaN read
as bits by a later integer step would turn that freedom into false disagreements."""
import argparse
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fops import run  # noqa: E402
from fp import F32, decode  # noqa: E402
from table import Table  # noqa: E402

M = (1 << 32) - 1
ISA = ("9.7 fuzz", "instructions")


def s32(x):
    return x - (1 << 32) if x >> 31 else x


def _f(op, rnd="rn"):
    def go(a, b, c=None):
        d, _ = run(op, [a, b] + ([c] if c is not None else []), F32, rnd, False, False)
        return None if decode(d, F32).isnan() else d
    return go


def _bfe(a, p, ln):
    p, ln = p & 0xFF, ln & 0xFF
    return 0 if ln == 0 or p >= 32 else (a >> p) & ((1 << min(ln, 32 - p)) - 1)


# name: (template after the destination, source kinds, function of the source values -> result or None)
# kinds: r = b32 register, p = predicate. Results are b32 except for setp (a predicate).
OPS = {
    "add.u32": ("r r", lambda a, b: (a + b) & M), "sub.s32": ("r r", lambda a, b: (a - b) & M),
    "mul.lo.u32": ("r r", lambda a, b: (a * b) & M), "mul.hi.s32": ("r r", lambda a, b: (s32(a) * s32(b) >> 32) & M),
    "mad.lo.s32": ("r r r", lambda a, b, c: (s32(a) * s32(b) + s32(c)) & M),
    "min.s32": ("r r", lambda a, b: min(s32(a), s32(b)) & M), "max.u32": ("r r", max),
    "and.b32": ("r r", lambda a, b: a & b), "or.b32": ("r r", lambda a, b: a | b), "xor.b32": ("r r", lambda a, b: a ^ b),
    "not.b32": ("r", lambda a: ~a & M), "shl.b32": ("r r", lambda a, b: (a << b) & M if b < 32 else 0),
    "shr.s32": ("r r", lambda a, b: (s32(a) >> min(b, 31)) & M), "popc.b32": ("r", lambda a: bin(a).count("1")),
    "clz.b32": ("r", lambda a: 32 - a.bit_length()), "brev.b32": ("r", lambda a: int(f"{a:032b}"[::-1], 2)),
    "bfe.u32": ("r r r", _bfe), "add.sat.s32": ("r r", lambda a, b: max(-(1 << 31), min((1 << 31) - 1, s32(a) + s32(b))) & M),
    "selp.b32": ("r r p", lambda a, b, c: a if c else b),
    "add.rn.f32": ("r r", _f("add")), "sub.rz.f32": ("r r", _f("sub", "rz")), "mul.rn.f32": ("r r", _f("mul")),
    "fma.rn.f32": ("r r r", _f("fma")), "abs.f32": ("r", lambda a: _sign(a, a & 0x7FFFFFFF)), "neg.f32": ("r", lambda a: _sign(a, a ^ 0x80000000)),
    "cvt.rn.f32.s32": ("r", lambda a: _cvt_f32(s32(a))), "cvt.rzi.s32.f32": ("r", lambda a: _cvt_s32(a)),
}
SETP = {"setp.lt.s32": lambda a, b: s32(a) < s32(b), "setp.hi.u32": lambda a, b: a > b, "setp.ne.b32": lambda a, b: a != b}


def _sign(a, d):
    """neg/abs: a NaN source gives an unspecified NaN (PTX ISA 9.7.3.9/10), so it is redrawn."""
    return None if decode(a, F32).isnan() else d


def _cvt_f32(n):
    from fp import V, encode, round_to
    return encode(round_to(V.of(n), F32, "rn"), F32)


def _cvt_s32(a):
    from cvt import to_int
    v = decode(a, F32)
    return None if v.isnan() else to_int(v, "rzi", "s32")


def _value(rng):
    kind = rng.random()
    if kind < .4:
        return rng.getrandbits(32) >> rng.choice((0, 16, 24, 28))
    if kind < .8:  # a float of moderate size, so float steps stay finite and interesting
        import struct
        return struct.unpack("<I", struct.pack("<f", rng.uniform(-1, 1) * 2.0 ** rng.randint(-8, 16)))[0]
    return rng.choice((0, 1, M, 0x80000000, 0x7FFFFFFF, 0x7F800000, 31, 32))


def program(rng, n_inputs):
    """One program: its template and, per input set, (inputs, expected) with every register."""
    sets = [({"a": _value(rng), "b": _value(rng), "c": _value(rng), "q": rng.getrandbits(1)}, {}) for _ in range(n_inputs)]
    regs, preds, insns = ["a", "b", "c"], ["q"], []
    for i in range(rng.randint(4, 12)):
        for _ in range(20):  # redraw a step whose result some input set cannot fix (a NaN)
            if rng.random() < .12:
                op, f, kinds, dst = *rng.choice(list(SETP.items())), "r r", f"p{i}"
            else:
                op = rng.choice(list(OPS))
                kinds, f = OPS[op]
                dst = f"r{i}"
            srcs = [rng.choice(preds) if k == "p" else rng.choice(regs[-4:] if rng.random() < .7 else regs) for k in kinds.split()]
            vals = []
            for ins, outs in sets:
                env = {**ins, **outs}
                vals.append(f(*[env[s] for s in srcs]))
            if all(v is not None for v in vals):
                break
        else:
            continue
        for (ins, outs), v in zip(sets, vals):
            outs[dst] = int(v) if dst[0] == "p" else v
        kind = "pred" if dst[0] == "p" else "b32"
        operands = ", ".join(f"%{s}:{'pred' if s[0] in 'pq' else 'b32'}" for s in srcs)
        insns.append(f"{op} %{dst}:{kind}, {operands}")
        (preds if dst[0] == "p" else regs).append(dst)
    return " ; ".join(insns), sets


def emit(t, programs, seed, n_inputs=8):
    rng = random.Random(seed)
    count = 0
    for _ in range(programs):
        tpl, sets = program(rng, n_inputs)
        used = set(re.findall(r"%(\w+):", tpl))
        count += tpl.count(" ; ") + 1
        for ins, outs in sets:
            t.add(tpl, {k: v for k, v in ins.items() if k in used}, outs, ISA, "exact")
    return count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--inputs", type=int, default=8)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runner")
    args = ap.parse_args()
    start = time.time()
    t = Table()
    n = emit(t, args.programs, args.seed, args.inputs)
    open(args.out, "w").write("\n".join(t.rows) + "\n")
    print(f"fuzz.py: {args.programs} programs, {n} instructions, {len(t.rows)} vectors, seed {args.seed}, "
          f"{time.time() - start:.1f} s", file=sys.stderr)
    if args.runner:
        return subprocess.run([args.runner, args.out, "--no-coverage"]).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
