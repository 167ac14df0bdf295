"""f16/bf16 arithmetic, scalar and packed x2 (PTX ISA 9.7.4 Half Precision Floating-Point), the
mixed-precision f32 forms with f16/bf16 sources (PTX ISA 9.7.5 Mixed Precision Floating-Point,
sm_100) and the packed f32x2 forms (PTX ISA 9.7.3 add/sub/mul/fma .f32x2, sm_100)."""
from fp import BF16, F16, F32, decode, encode
from fops import finish, run
from table import RNG, bits_of, nan_check, randoms, specials

HALF = {op: (f"9.7.4.{i} {op}", f"half-precision-floating-point-instructions-{op}")
        for i, op in ((1, "add"), (2, "sub"), (3, "mul"), (4, "fma"))}
MIXED = {op: (f"9.7.5.{i} {op}", f"mixed-precision-floating-point-instructions-{op}")
         for i, op in ((1, "add"), (2, "sub"), (3, "fma"))}
F32OPS = {op: (f"9.7.3.{i} {op}", f"floating-point-instructions-{op}") for i, op in ((3, "add"), (4, "sub"), (5, "mul"), (6, "fma"))}


def _relu(bits, fmt):
    """.relu: negative results become +0, NaN the canonical NaN (PTX ISA fma half precision)."""
    v = decode(bits, fmt)
    if v.isnan():
        return 0x7FFF
    return 0 if v.sign else bits


def _vectors(fmt, arity):
    sp = specials(fmt)
    one, m = bits_of(1.0, fmt), bits_of(-1.5, fmt)
    p = fmt.p
    vec = [[s] + [m, one][:arity - 1] for s in sp] + [[one, s, m][:arity] if arity > 1 else [s] for s in sp]
    vec += [[bits_of(1.0, fmt), bits_of(2.0 ** -p, fmt), one][:arity], [bits_of(1.0, fmt), bits_of(3 * 2.0 ** -p, fmt), one][:arity],
            [bits_of(float(fmt.maxf), fmt), bits_of(float(fmt.maxf), fmt), one][:arity]]
    r = randoms(fmt, 20 * arity, -6, 6)
    return vec + [r[i:i + arity] for i in range(0, len(r), arity)]


def _scalar(op, srcs, fmt, flush, sat, relu):
    d, _ = run(op, srcs, fmt, "rn", flush, sat)
    return _relu(d, fmt) if relu else d


def emit(t):
    for fmt, name in ((F16, "f16"), (BF16, "bf16")):
        for op in ("add", "sub", "mul", "fma"):
            arity = 3 if op == "fma" else 2
            mods = [("", False, False, False)]
            mods += [(".ftz", True, False, False), (".sat", False, True, False),
                     (".ftz.sat", True, True, False)] if fmt is F16 else []
            mods += [(".relu", False, False, True)] if op == "fma" else []
            mods += [(".ftz.relu", True, False, True)] if op == "fma" and fmt is F16 else []
            vecs = _vectors(fmt, arity)
            for suffix, flush, sat, relu in mods:
                chk = "exact" if relu else nan_check(name)
                ops = ", ".join(f"%{c}:b16" for c in "abc"[:arity])
                for v in vecs:
                    d = _scalar(op, v, fmt, flush, sat, relu)
                    t.add(f"{op}.rn{suffix}.{name} %d:b16, {ops}", dict(zip("abc", v)), {"d": d}, HALF[op], chk)
                ops2 = ", ".join(f"%{c}:b32" for c in "abc"[:arity])
                for lo, hi in zip(vecs, vecs[1:] + vecs[:1]):  # lane 0 = low half
                    packed = [x | (y << 16) for x, y in zip(lo, hi)]
                    d = _scalar(op, lo, fmt, flush, sat, relu) | (_scalar(op, hi, fmt, flush, sat, relu) << 16)
                    t.add(f"{op}.rn{suffix}.{name}x2 %d:b32, {ops2}", dict(zip("abc", packed)), {"d": d}, HALF[op], chk)
        emit_mixed(t, fmt, name)
    emit_f32x2(t)


def emit_mixed(t, fmt, name):
    """add/sub .f32.f16: d = f32(a) +- c; fma .f32.f16: d = f32(a)*f32(b) + c, one rounding."""
    hs, fs = specials(fmt) + randoms(fmt, 20, -8, 8), specials(F32) + randoms(F32, 20, -8, 8)
    fs = fs[:len(hs)]
    for rnd in ("rn", "rz", "rm", "rp"):
        for sat in ("", ".sat"):
            for op in ("add", "sub"):
                for a, c in list(zip(hs, fs)) + list(zip(hs, fs[5:] + fs[:5])):
                    d, _ = run(op, [a, c], F32, rnd, False, bool(sat), [fmt, F32])
                    t.add(f"{op}.{rnd}{sat}.f32.{name} %d:b32, %a:b16, %c:b32", {"a": a, "c": c}, {"d": d}, MIXED[op],
                          nan_check("f32"), 100)
            for a, b, c in zip(hs, hs[3:] + hs[:3], fs):
                d, _ = run("fma", [a, b, c], F32, rnd, False, bool(sat), [fmt, fmt, F32])
                t.add(f"fma.{rnd}{sat}.f32.{name} %d:b32, %a:b16, %b:b16, %c:b32", {"a": a, "b": b, "c": c}, {"d": d},
                      MIXED["fma"], nan_check("f32"), 100)


def emit_f32x2(t):
    """Each f32 lane as the scalar form; lane 0 is bits 0..31 (PTX ISA fma: fA[0] = a[0:31])."""
    lo = specials(F32) + randoms(F32, 22)
    hi = randoms(F32, 22) + specials(F32)
    for op in ("add", "sub", "mul", "fma"):
        arity = 3 if op == "fma" else 2
        for rnd in ("rn", "rz", "rm", "rp"):
            for flush in (False, True):
                tpl = f"{op}.{rnd}{'.ftz' if flush else ''}.f32x2 %d:b64, " + ", ".join(f"%{c}:b64" for c in "abc"[:arity])
                for i in range(len(lo)):
                    a0 = [lo[(i + k * 7) % len(lo)] for k in range(arity)]
                    a1 = [hi[(i + k * 5) % len(hi)] for k in range(arity)]
                    d0, _ = run(op, a0, F32, rnd, flush)
                    d1, _ = run(op, a1, F32, rnd, flush)
                    ins = {c: x | (y << 32) for c, x, y in zip("abc", a0, a1)}
                    t.add(tpl, ins, {"d": d0 | (d1 << 32)}, F32OPS[op], nan_check("f32"), 100)
