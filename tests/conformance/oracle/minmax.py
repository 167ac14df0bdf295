"""min/max on floats: 2-input with .ftz/.NaN/.xorsign.abs (f32, f64, f16, bf16, x2) and the 3-input
f32 forms with .ftz/.NaN/.abs (sm_100). PTX ISA 9.7.3.11/12 (f32/f64) and 9.7.4.7/8 (half).

The ISA: a NaN operand is ignored unless .NaN is given; the result is the canonical NaN when all
operands are NaN, or with .NaN when any is. Zeros: -0.0 is taken as less than +0.0 (IEEE 754-2019
minimum/maximumNumber; the ISA text is silent on signed zeros, so these vectors are marked in the
README). .xorsign.abs: the result is min/max of |a| and |b| with the sign bit a.sign ^ b.sign;
when the result would be NaN the modifiers do not apply. One-NaN vectors of .xorsign.abs are not
generated: the ISA does not say whether the NaN's sign bit takes part in the xor.
"""
from fp import BF16, CANONICAL_NAN, F16, F32, F64, decode, ftz
from table import bits_of, randoms, specials

ISA = {("min", False): ("9.7.3.11 min", "floating-point-instructions-min"),
       ("max", False): ("9.7.3.12 max", "floating-point-instructions-max"),
       ("min", True): ("9.7.4.7 min", "half-precision-floating-point-instructions-min"),
       ("max", True): ("9.7.4.8 max", "half-precision-floating-point-instructions-max")}


def _key(v):
    """Total order on non-NaN values with -0 < +0."""
    if v.isinf():
        return (-1 if v.sign else 1) * float("inf"), 0
    return v.signed(), -v.sign


def pick(op, bits, fmt, nan_mode=False, flush=False, absolute=False, xorsign=False):
    """The min/max of `bits` as a bit pattern, or None where the ISA leaves it open."""
    sign = 1 << (fmt.bits - 1)
    vals = [decode(b, fmt) for b in bits]
    if flush:
        bits = [b & sign if fmt.is_sub(v) else b for b, v in zip(bits, vals)]
        vals = [ftz(v, fmt) for v in vals]
    nans = [v.isnan() for v in vals]
    if all(nans) or (nan_mode and any(nans)):
        return CANONICAL_NAN[fmt.name]
    if xorsign and any(nans):
        return None
    cands = [(b & ~sign if absolute or xorsign else b, v.neg() if (absolute or xorsign) and v.sign else v)
             for b, v, n in zip(bits, vals, nans) if not n]
    choose = min if op == "min" else max
    b, _ = choose(cands, key=lambda c: _key(c[1]))
    if xorsign:
        b |= (bits[0] ^ bits[1]) & sign
    return b


def _operands(fmt, n):
    sp = specials(fmt) + [bits_of(2.0, fmt), bits_of(-3.0, fmt)]
    rows = [[sp[i], sp[(i + 1 + k * 4) % len(sp)], sp[(i + 9) % len(sp)]][:n] for i in range(len(sp)) for k in range(2)]
    rows += [[sp[0], sp[11], sp[0]][:n], [sp[11], sp[0], sp[11]][:n], [sp[8], sp[19], sp[9]][:n]]
    r = randoms(fmt, 20 * n, -30, 30)
    return rows + [r[i:i + n] for i in range(0, len(r), n)]


def emit(t):
    scalar = [(F32, "f32", "b32", False), (F64, "f64", "b64", False), (F16, "f16", "b16", True),
              (BF16, "bf16", "b16", True)]
    for fmt, name, reg, half in scalar:
        mods = [("", {})] if fmt is F64 else [("", {}), (".NaN", {"nan_mode": True}), (".xorsign.abs", {"xorsign": True}),
                                               (".NaN.xorsign.abs", {"nan_mode": True, "xorsign": True})]
        if fmt in (F32, F16):
            mods += [(".ftz" + s, dict(kw, flush=True)) for s, kw in mods]
        vecs = _operands(fmt, 2)
        for op in ("min", "max"):
            for suffix, kw in mods:
                for a, b in vecs:
                    d = pick(op, [a, b], fmt, **kw)
                    if d is not None:
                        t.add(f"{op}{suffix}.{name} %d:{reg}, %a:{reg}, %b:{reg}", {"a": a, "b": b}, {"d": d},
                              ISA[(op, half)], f"nan:{name}" if not kw.get("nan_mode") and not kw.get("xorsign") else "exact")
                if half:
                    for (a0, b0), (a1, b1) in zip(vecs, vecs[3:] + vecs[:3]):
                        d0, d1 = pick(op, [a0, b0], fmt, **kw), pick(op, [a1, b1], fmt, **kw)
                        if d0 is not None and d1 is not None:
                            t.add(f"{op}{suffix}.{name}x2 %d:b32, %a:b32, %b:b32", {"a": a0 | a1 << 16, "b": b0 | b1 << 16},
                                  {"d": d0 | d1 << 16}, ISA[(op, True)], "exact")
    # 2-input .abs (sm_100): min/max of |a| and |b| (PTX ISA 9.7.3.11/12), with .ftz/.NaN
    for op in ("min", "max"):
        for ftz_ in ("", ".ftz"):
            for nan_ in ("", ".NaN"):
                kw = {"flush": bool(ftz_), "nan_mode": bool(nan_), "absolute": True}
                for a, b in _operands(F32, 2):
                    t.add(f"{op}{ftz_}{nan_}.abs.f32 %d:b32, %a:b32, %b:b32", {"a": a, "b": b},
                          {"d": pick(op, [a, b], F32, **kw)}, ISA[(op, False)], "exact", 100)
    vecs3 = _operands(F32, 3)
    for op in ("min", "max"):
        for ftz_ in ("", ".ftz"):
            for nan_ in ("", ".NaN"):
                for abs_ in ("", ".abs"):
                    kw = {"flush": bool(ftz_), "nan_mode": bool(nan_), "absolute": bool(abs_)}
                    for a, b, c in vecs3:
                        d = pick(op, [a, b, c], F32, **kw)
                        t.add(f"{op}{ftz_}{nan_}{abs_}.f32 %d:b32, %a:b32, %b:b32, %c:b32", {"a": a, "b": b, "c": c},
                              {"d": d}, ISA[(op, False)], "exact", 100)
