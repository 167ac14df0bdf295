"""f32 and f64 arithmetic: add, sub, mul, fma, div, sqrt, rcp (the IEEE-rounded forms), neg, abs,
copysign and testp. PTX ISA 9.7.3 Floating-Point Instructions."""
from fp import F32, F64, V, decode, encode
from fops import run
from table import RNG, bits_of, nan_check, randoms, specials

ISA = {  # PTX ISA 9.7.3.x: section number and the docs anchor of each instruction
    "testp": ("9.7.3.1 testp", "floating-point-instructions-testp"),
    "copysign": ("9.7.3.2 copysign", "floating-point-instructions-copysign"),
    "add": ("9.7.3.3 add", "floating-point-instructions-add"),
    "sub": ("9.7.3.4 sub", "floating-point-instructions-sub"),
    "mul": ("9.7.3.5 mul", "floating-point-instructions-mul"),
    "fma": ("9.7.3.6 fma", "floating-point-instructions-fma"),
    "div": ("9.7.3.8 div", "floating-point-instructions-div"),
    "abs": ("9.7.3.9 abs", "floating-point-instructions-abs"),
    "neg": ("9.7.3.10 neg", "floating-point-instructions-neg"),
    "rcp": ("9.7.3.13 rcp", "floating-point-instructions-rcp"),
    "sqrt": ("9.7.3.15 sqrt", "floating-point-instructions-sqrt"),
}
RND = ("rn", "rz", "rm", "rp")


def _f(fmt, x):
    return bits_of(x, fmt)


def boundary_pairs(op, fmt):
    """Operands whose exact result sits on or next to a rounding boundary of fmt."""
    p = fmt.p
    ulp_half = 2.0 ** -p  # half an ulp of 1.0
    tiny = 2.0 ** (-2 * p + 2)
    mn = 2.0 ** fmt.emin
    big = float(fmt.maxf)
    if op in ("add", "sub"):
        s = 1 if op == "add" else -1
        return [(_f(fmt, 1.0), _f(fmt, s * ulp_half)), (_f(fmt, 1.0), _f(fmt, s * 3 * ulp_half)),
                (_f(fmt, 1.0 + 2 * ulp_half), _f(fmt, s * ulp_half)), (_f(fmt, 1.0), _f(fmt, s * (ulp_half + tiny))),
                (_f(fmt, -1.0), _f(fmt, s * (-ulp_half + tiny))), (_f(fmt, big), _f(fmt, s * big)),
                (_f(fmt, -big), _f(fmt, -s * big * 2 ** -p)), (_f(fmt, mn), _f(fmt, -s * mn * 0.5)),
                (_f(fmt, 1.5), _f(fmt, s * 1.5)), (_f(fmt, -0.0), _f(fmt, s * 0.0))]
    if op == "mul":
        a = 1.0 + 2.0 ** -(p // 2)
        return [(_f(fmt, a), _f(fmt, a)), (_f(fmt, -a), _f(fmt, a + 2.0 ** -(p // 2))), (_f(fmt, big), _f(fmt, 2.0)),
                (_f(fmt, mn), _f(fmt, 0.5)), (_f(fmt, mn), _f(fmt, 0.75)), (_f(fmt, mn * 2.0 ** (1 - p)), _f(fmt, 0.5)),
                (_f(fmt, -mn * 2.0 ** (1 - p)), _f(fmt, 0.5)), (_f(fmt, 3.0), _f(fmt, 1.0 / 3.0))]
    if op == "div":
        return [(_f(fmt, 1.0), _f(fmt, 3.0)), (_f(fmt, -2.0), _f(fmt, 3.0)), (_f(fmt, big), _f(fmt, 0.5)),
                (_f(fmt, mn), _f(fmt, 3.0)), (_f(fmt, 1.0), _f(fmt, big)), (_f(fmt, 7.0), _f(fmt, 7.0))]
    return []


def binary_vectors(op, fmt, extra_randoms=20):
    sp = specials(fmt)
    n0, n1 = _f(fmt, 1.0), _f(fmt, -2.5)
    vecs = [(s, n0) for s in sp] + [(n1, s) for s in sp] + [(s, s) for s in sp[::3]]
    vecs += [(sp[0], sp[11]), (sp[8], sp[19]), (sp[1], sp[12])]  # +0,-0  +inf,-inf  sub,-sub
    vecs += boundary_pairs(op, fmt)
    r = randoms(fmt, 2 * extra_randoms)
    return vecs + list(zip(r[::2], r[1::2]))


def ternary_vectors(fmt):
    sp = specials(fmt)
    one, m = _f(fmt, 1.0), _f(fmt, -1.5)
    vecs = [(s, m, one) for s in sp] + [(one, m, s) for s in sp] + [(s, s, s) for s in sp[::4]]
    p = fmt.p
    a = 1.0 + 2.0 ** -(p // 2)
    vecs += [(_f(fmt, a), _f(fmt, a), _f(fmt, -1.0)), (_f(fmt, a), _f(fmt, -a), _f(fmt, 1.0)),
             (sp[0], sp[8], one), (sp[8], one, sp[19]), (_f(fmt, 2.0 ** fmt.emin), _f(fmt, 0.5), sp[11]),
             (_f(fmt, 3.0), _f(fmt, 1.0 / 3.0), _f(fmt, -1.0)), (sp[11], one, sp[0]), (sp[11], one, sp[11])]
    r = randoms(fmt, 60)
    return vecs + list(zip(r[0::3], r[1::3], r[2::3]))


def emit(t):
    lanes = {F32: ("b32", "f32"), F64: ("b64", "f64")}
    for fmt, (reg, name) in lanes.items():
        for op in ("add", "sub", "mul", "div"):
            mods = [(rnd, False, False) for rnd in RND]
            if fmt is F32 and op != "div":
                mods += [(rnd, fl, sat) for rnd in RND for fl, sat in ((True, False), (False, True), (True, True))]
            if fmt is F32 and op == "div":
                mods += [("rn", True, False)]
            vecs = binary_vectors(op, fmt)
            for rnd, fl, sat in mods:
                tpl = f"{op}.{rnd}{'.ftz' if fl else ''}{'.sat' if sat else ''}.{name} %d:{reg}, %a:{reg}, %b:{reg}"
                for a, b in vecs:
                    d, _ = run(op, [a, b], fmt, rnd, fl, sat)
                    t.add(tpl, {"a": a, "b": b}, {"d": d}, ISA[op], nan_check(name))
        fmods = [(rnd, False, False) for rnd in RND]
        if fmt is F32:
            fmods += [(rnd, fl, sat) for rnd in RND for fl, sat in ((True, False), (False, True), (True, True))]
        vecs = ternary_vectors(fmt)
        for rnd, fl, sat in fmods:
            tpl = f"fma.{rnd}{'.ftz' if fl else ''}{'.sat' if sat else ''}.{name} %d:{reg}, %a:{reg}, %b:{reg}, %c:{reg}"
            for a, b, c in vecs:
                d, _ = run("fma", [a, b, c], fmt, rnd, fl, sat)
                t.add(tpl, {"a": a, "b": b, "c": c}, {"d": d}, ISA["fma"], nan_check(name))
        unary = specials(fmt) + randoms(fmt, 20, -60, 60) + [_f(fmt, 2.0), _f(fmt, 4.0), _f(fmt, 3.0)]
        for op in ("sqrt", "rcp"):
            for rnd in RND:
                for fl in ((False, True) if fmt is F32 else (False,)):
                    tpl = f"{op}.{rnd}{'.ftz' if fl else ''}.{name} %d:{reg}, %a:{reg}"
                    for a in unary:
                        d, _ = run(op, [a], fmt, rnd, fl)
                        t.add(tpl, {"a": a}, {"d": d}, ISA[op], nan_check(name))
        emit_bitwise(t, fmt, reg, name, unary)


def emit_bitwise(t, fmt, reg, name, unary):
    """neg/abs/copysign act on the sign bit alone, NaNs included (PTX ISA: "NaN inputs yield an
    unspecified NaN" for neg/abs, so NaN lanes accept any NaN); testp classifies."""
    sign = 1 << (fmt.bits - 1)
    for a in unary:
        flushed = a & sign if fmt.is_sub(decode(a, fmt)) else a
        t.add(f"neg.{name} %d:{reg}, %a:{reg}", {"a": a}, {"d": a ^ sign}, ISA["neg"], nan_check(name))
        t.add(f"abs.{name} %d:{reg}, %a:{reg}", {"a": a}, {"d": a & ~sign}, ISA["abs"], nan_check(name))
        if fmt is F32:
            t.add(f"neg.ftz.f32 %d:{reg}, %a:{reg}", {"a": a}, {"d": flushed ^ sign}, ISA["neg"], nan_check(name))
            t.add(f"abs.ftz.f32 %d:{reg}, %a:{reg}", {"a": a}, {"d": flushed & ~sign}, ISA["abs"], nan_check(name))
        b = unary[RNG.randrange(len(unary))]
        # copysign d, a, b: b's magnitude with a's sign
        t.add(f"copysign.{name} %d:{reg}, %a:{reg}, %b:{reg}", {"a": a, "b": b}, {"d": (b & ~sign) | (a & sign)},
              ISA["copysign"], nan_check(name))
        v = decode(a, fmt)
        # testp.normal: "As a special case, positive and negative zero are considered normal numbers"
        # (PTX ISA testp); silicon agrees (+0 and -0 test normal: H100 run 2026-12-06,
        # tests/device/ptx_conformance_sm90, docs/ptx.md 'Conformance'). Zeros are not subnormal.
        klass = {"finite": v.kind == "num", "infinite": v.isinf(), "number": not v.isnan(), "notanumber": v.isnan(),
                 "normal": v.kind == "num" and not fmt.is_sub(v), "subnormal": fmt.is_sub(v)}
        for k, p in klass.items():
            t.add(f"testp.{k}.{name} %p:pred, %a:{reg}", {"a": a}, {"p": int(p)}, ISA["testp"])
