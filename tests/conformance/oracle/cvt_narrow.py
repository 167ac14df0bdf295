"""cvt to and from the FP8/FP6/FP4 pairs and quads, ue8m0x2, and cvt.rs (stochastic rounding).
PTX ISA 9.7.9.21 cvt (#data-movement-and-conversion-instructions-cvt), sm_89/sm_90 for e4m3x2/e5m2x2,
sm_100a for the rest. .satfinite: NaN stays NaN, +-inf and overflow become +-MAX_NORM."""
from gmpy2 import mpq

from cvt import ISA
from fp import BF16, E2M1, E2M3, E3M2, E4M3, E5M2, F16, F32, UE8M0, V, decode, encode, round_mag, round_to
from table import RNG, bits_of, randoms, specials

NARROW = {"e4m3": (E4M3, 8), "e5m2": (E5M2, 8), "e2m3": (E2M3, 8), "e3m2": (E3M2, 8), "e2m1": (E2M1, 4)}
SM = {"e4m3": 90, "e5m2": 90, "e2m3": 100, "e3m2": 100, "e2m1": 100}


def narrow(bits, fmt, relu):
    v = decode(bits, F32)
    if v.isnan() and fmt.name not in ("e4m3", "e5m2"):
        return None  # e2m3/e3m2/e2m1 have no NaN and the ISA does not say what a NaN becomes
    r = round_to(v, fmt, "rn", satfinite=True)
    if relu and not r.isnan() and r.sign:
        r = V("num", 0, 0)
    return encode(r, fmt)


def widen(code, fmt, relu):
    """An FP8/6/4 code to f16 (exact); .relu: negative -> +0, NaN -> canonical NaN."""
    v = decode(code, fmt)
    if relu and (v.isnan() or v.sign):
        return 0x7FFF if v.isnan() else 0
    return encode(round_to(v, F16, "rn"), F16)


def emit(t):
    srcs = specials(F32) + randoms(F32, 20, -8, 10) + [bits_of(x, F32) for x in (448.0, 464.0, 480.0, 0.3125, 6.5, 7.0, 5.0,
                                                                                   57344.0, 61440.0, 28.0, 30.0, 2.0 ** -9)]
    for name, (fmt, w) in NARROW.items():
        for relu in ("", ".relu"):
            for a, b in zip(srcs, srcs[5:] + srcs[:5]):
                x, y = narrow(a, fmt, relu), narrow(b, fmt, relu)
                if x is None or y is None:
                    continue
                d = x << (8 if w == 8 else 4) | y
                reg = "b8" if w == 4 else "b16"
                t.add(f"cvt.rn.satfinite{relu}.{name}x2.f32 %d:{reg}, %a:b32, %b:b32", {"a": a, "b": b}, {"d": d}, ISA,
                      f"nan:{name}" if name in ("e4m3", "e5m2") else "exact", SM[name])
            codes = list(range(1 << fmt.bits))
            for lo, hi in zip(codes, codes[::-1]):
                a = (hi << w) | lo
                d = (widen(hi, fmt, relu) << 16) | widen(lo, fmt, relu)
                t.add(f"cvt.rn{relu}.f16x2.{name}x2 %d:b32, %a:{'b8' if w == 4 else 'b16'}", {"a": a}, {"d": d}, ISA,
                      "exact" if relu else "nan:f16", SM[name])
    emit_ue8m0(t)
    emit_rs(t)


def ue8m0(bits, rnd, satfinite):
    """f32 -> ue8m0 (2^(c-127)): rz/rp to a power of two; None where the ISA is silent (zero,
    negative, below 2^-127, and overflow without .satfinite)."""
    v = decode(bits, F32)
    if v.isnan():
        return 0xFF
    if v.sign or v.iszero():
        return None
    if v.isinf():
        return 0xFE if satfinite else None
    r = round_mag(v.q, 1, -127, rnd, 0)
    if r == 0:
        return None
    e = r.numerator.bit_length() - 1 if r >= 1 else -(r.denominator.bit_length() - 1)
    if e > 127:
        return 0xFE if satfinite else None
    return e + 127


def emit_ue8m0(t):
    srcs = [s for s in specials(F32) + randoms(F32, 30, -120, 127)] + [0x3F800000, 0x3F800001, 0x3FFFFFFF, 0x7F000000,
                                                                        0x7F000001, 0x00400000, 0x00400001]
    for rnd in ("rz", "rp"):
        for sf in ("", ".satfinite"):
            for a, b in zip(srcs, srcs[3:] + srcs[:3]):
                x, y = ue8m0(a, rnd, bool(sf)), ue8m0(b, rnd, bool(sf))
                if x is not None and y is not None:
                    t.add(f"cvt.{rnd}{sf}.ue8m0x2.f32 %d:b16, %a:b32, %b:b32", {"a": a, "b": b}, {"d": x << 8 | y}, ISA,
                          "exact", 100)
    for c in range(256):  # ue8m0x2 -> bf16x2 is exact: 2^(c-127); 0xFF is NaN
        d = 0x7FFF if c == 0xFF else encode(V("num", 0, mpq(2) ** (c - 127)), BF16)
        lo = 255 - c
        dl = 0x7FFF if lo == 0xFF else encode(V("num", 0, mpq(2) ** (lo - 127)), BF16)
        t.add("cvt.rn.bf16x2.ue8m0x2 %d:b32, %a:b16", {"a": c << 8 | lo}, {"d": d << 16 | dl}, ISA, "nan:bf16", 100)


def rs_round(bits, fmt, rand, drop):
    """Stochastic rounding of an f32 to fmt (PTX ISA cvt, "rbits"): the random bits are added to the
    `drop` mantissa bits the conversion discards, then the result is truncated; .satfinite."""
    v = decode(bits, F32)
    if v.kind != "num":
        return encode(round_to(v, fmt, "rz", True), fmt) if fmt.name in ("f16", "bf16", "e4m3", "e5m2") else 0
    m = bits & 0x7FFFFFFF
    m = (m + (rand & ((1 << drop) - 1))) >> drop << drop  # add to the discarded bits, truncate
    r = round_to(decode(m | (bits & 0x80000000), F32), fmt, "rz", True)
    return encode(r, fmt)


def emit_rs(t):
    """f16x2/bf16x2: rbits' halves (upper for a); normal results only, since the ISA does not say how
    the random bits align when the result is subnormal. The x4 narrow forms: rbits = 0 (truncation)
    and exactly representable inputs only, which do not depend on the alignment the ISA leaves open."""
    srcs = randoms(F32, 40, -10, 10) + [bits_of(x, F32) for x in (1.0, -2.0, 70000.0, -1e9)] + [0x7F800000, 0xFF800000, 0x7FC00000]
    finite = [s for s in srcs if (s >> 23) & 0xFF != 0xFF]
    for df, dn, drop, mask in ((F16, "f16", 13, 0x1FFF), (BF16, "bf16", 16, 0xFFFF)):
        for a, b in zip(srcs, srcs[9:] + srcs[:9]):
            r = RNG.getrandbits(32)
            d = rs_round(a, df, (r >> 16) & mask, drop) << 16 | rs_round(b, df, r & mask, drop)
            t.add(f"cvt.rs.satfinite.{dn}x2.f32 %d:b32, %a:b32, %b:b32, %r:b32", {"a": a, "b": b, "r": r}, {"d": d}, ISA,
                  f"nan:{dn}", 100)
    for name, w in (("e4m3", 8), ("e2m1", 4)):
        fmt = NARROW[name][0]
        exact = [encode(V("num", 0, q), F32) | s for q in list(fmt.codes)[:6] for s in (0, 0x80000000)]
        for i in range(24):
            q = [exact[(i + k) % len(exact)] for k in range(4)] if i < 12 else [finite[(i * 4 + k) % len(finite)] for k in range(4)]
            r = RNG.getrandbits(32) if i < 12 else 0
            d = 0
            for x in q:
                d = d << w | encode(round_to(decode(x, F32), fmt, "rz", True), fmt)
            ins = {"a": q[0], "b": q[1], "e": q[2], "f": q[3], "r": r}
            t.add(f"cvt.rs.satfinite.{name}x4.f32 %d:{'b32' if w == 8 else 'b16'}, {{%a:b32, %b:b32, %e:b32, %f:b32}}, %r:b32",
                  ins, {"d": d}, ISA, f"nan:{name}" if name == "e4m3" else "exact", 100)
