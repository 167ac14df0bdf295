"""cvt forms the other cvt files leave: scalar f16/bf16 from f32 with .satfinite (and .relu), tf32
with .rz and .relu, and cvt.rs without .satfinite, with .relu, and for every x4 narrow type. PTX ISA
9.7.9.21 cvt. The other order of .relu/.satfinite is float_more.py's alias.

.satfinite: NaN stays NaN, +-inf and overflow become +-MAX_NORM. .relu: a negative result becomes
+0, a NaN the canonical NaN (tf32: 0x7FFFFFFF, as cvt.rn.tf32.f32's NaN in cvt_more.py).
"""
from cvt import ISA, _f2f
from cvt_narrow import NARROW, rs_round
from fp import BF16, F16, F32, TF32, V, decode, encode, round_to
from table import RNG, bits_of, nan_check, randoms, specials

CANON = {"f16": 0x7FFF, "bf16": 0x7FFF}


def emit(t):
    s32 = specials(F32) + randoms(F32, 16, -30, 30) + [0x477FF000, 0x477FF001, 0x7F7FFFFF, 0x38800000, 0x33800001]
    for rnd in ("rn", "rz"):
        for df, dn in ((F16, "f16"), (BF16, "bf16")):
            for relu in ("", ".relu"):
                for a in s32:
                    d = _f2f(a, F32, df, rnd, satfinite=True, relu=bool(relu))
                    t.add(f"cvt.{rnd}{relu}.satfinite.{dn}.f32 %d:b16, %a:b32", {"a": a}, {"d": d}, ISA,
                          "exact" if relu else nan_check(dn), 100)
        # tf32 (only the top 19 bits of the container are defined: mask)
        for relu, sf in (("", ""), (".relu", ""), (".relu", ".satfinite")):
            if rnd == "rn" and not relu:
                continue  # cvt.rn.tf32.f32 is cvt_more.py's
            for a in s32:
                r = round_to(decode(a, F32), TF32, rnd, bool(sf))
                if r.isnan():
                    d, chk = 0x7FFFFFFF, "mask:ffffe000" if relu else "nan:f32"  # tf32's low 13 bits: undefined
                elif relu and r.sign:
                    d, chk = 0, "mask:ffffe000"
                else:
                    d, chk = encode(r, F32), "mask:ffffe000"
                t.add(f"cvt.{rnd}{relu}{sf}.tf32.f32 %d:b32, %a:b32", {"a": a}, {"d": d}, ISA, chk, 100)
    emit_rs(t)


def _rs(a, fmt, rand, drop, satfinite, relu):
    v = decode(a, F32)
    if v.isnan():
        return CANON[fmt.name] if relu else encode(v, fmt)
    if v.isinf() and not satfinite:
        d = encode(v, fmt)
    else:
        d = rs_round(a, fmt, rand, drop)
    if relu and d >> (fmt.bits - 1):
        return 0
    return d


def emit_rs(t):
    """cvt.rs.{f16x2,bf16x2}.f32 without .satfinite and with .relu (rbits' halves, upper for a; normal
    results only, as cvt_narrow.py); the x4 forms of every narrow type with .satfinite{.relu}: rbits = 0
    (truncation) or exactly representable inputs (cvt_narrow.py's reasons)."""
    srcs = randoms(F32, 30, -10, 10) + [bits_of(x, F32) for x in (1.0, -2.0, 3.5)] + [0x7F800000, 0xFF800000, 0x7FC00000]
    for df, dn, drop, mask in ((F16, "f16", 13, 0x1FFF), (BF16, "bf16", 16, 0xFFFF)):
        for relu, sf in (("", ""), (".relu", ""), (".relu", ".satfinite")):
            for a, b in zip(srcs, srcs[9:] + srcs[:9]):
                r = RNG.getrandbits(32)
                kw = {"satfinite": bool(sf), "relu": bool(relu)}
                d = _rs(a, df, (r >> 16) & mask, drop, **kw) << 16 | _rs(b, df, r & mask, drop, **kw)
                t.add(f"cvt.rs{relu}{sf}.{dn}x2.f32 %d:b32, %a:b32, %b:b32, %r:b32", {"a": a, "b": b, "r": r}, {"d": d},
                      ISA, "exact" if relu else f"nan:{dn}", 100)
    finite = [s for s in srcs if (s >> 23) & 0xFF != 0xFF]
    for name, (fmt, w) in NARROW.items():
        exact = [encode(V("num", 0, q), F32) | s for q in list(fmt.codes)[:6] for s in (0, 0x80000000)]
        for relu in ("", ".relu"):
            if name in ("e4m3", "e2m1") and not relu:
                continue  # cvt_narrow.py's
            for i in range(24):
                q = [exact[(i + k) % len(exact)] for k in range(4)] if i < 12 else [finite[(i * 4 + k) % len(finite)] for k in range(4)]
                r = RNG.getrandbits(32) if i < 12 else 0
                d = 0
                for x in q:
                    c = encode(round_to(decode(x, F32), fmt, "rz", True), fmt)
                    if relu and x >> 31:  # a negative source (a -0 included) becomes +0
                        c = 0
                    d = d << w | c
                ins = {"a": q[0], "b": q[1], "e": q[2], "f": q[3], "r": r}
                t.add(f"cvt.rs{relu}.satfinite.{name}x4.f32 %d:{'b32' if w == 8 else 'b16'}, {{%a:b32, %b:b32, %e:b32, %f:b32}}, %r:b32",
                      ins, {"d": d}, ISA, "exact", 100)
