"""cvt: float<->float in every rounding mode with .ftz/.sat/.satfinite/.relu, float<->int with
.rni/.rzi/.rmi/.rpi (out of range saturates; NaN as silicon converts it, nan_to_int), f16x2/bf16x2 packing, tf32, the FP8/FP6/FP4
and ue8m0 pairs, and cvt.rs. PTX ISA 9.7.9.21 cvt
(https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt).
"""
from gmpy2 import mpq

from fp import BF16, E2M1, E2M3, E3M2, E4M3, E5M2, F16, F32, F64, TF32, UE8M0, V, decode, encode, ftz, round_mag, round_to
from table import RNG, bits_of, nan_check, randoms, specials

ISA = ("9.7.9.21 cvt", "data-movement-and-conversion-instructions-cvt")
REG = {16: "b16", 32: "b32", 64: "b64", 8: "b8"}
INTS = {"s8": (8, True), "u8": (8, False), "s16": (16, True), "u16": (16, False), "s32": (32, True), "u32": (32, False),
        "s64": (64, True), "u64": (64, False)}


def nan_to_int(src, name):
    """A NaN converted to an integer. The ISA says "NaN inputs are converted to 0"; silicon gives
    1 << (bits - 1) of the destination width (0x80 .. 0x8000000000000000, unsigned destinations too)
    when the destination is 64-bit (any source) or the source is f64 (any destination), else 0
    (f16/bf16/f32 to 8, 16 or 32 bits): H100 run 2026-12-06 (tests/device/ptx_conformance_sm90,
    docs/ptx.md 'Conformance')."""
    bits, _ = INTS[name]
    return 1 << (bits - 1) if bits == 64 or src is F64 else 0


def to_int(v, irnd, name, src=None):
    """Float -> integer: round to an integer per .rni/.rzi/.rmi/.rpi, clamp to the type's range
    (PTX ISA cvt: float-to-integer saturates); a NaN as silicon converts it (nan_to_int; src is the
    source format, needed only for a NaN)."""
    bits, signed = INTS[name]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if v.isnan():
        assert src is not None, "a NaN source needs its format"
        return nan_to_int(src, name)
    if v.isinf():
        return (lo if v.sign else hi) & ((1 << bits) - 1)
    q = v.signed()
    fl = q.numerator // q.denominator
    frac = q - fl
    n = {"rzi": fl if q >= 0 or frac == 0 else fl + 1, "rmi": fl, "rpi": fl + (frac > 0),
         "rni": fl + (frac > mpq(1, 2) or (frac == mpq(1, 2) and fl % 2 == 1))}[irnd]
    return max(lo, min(hi, n)) & ((1 << bits) - 1)


def emit(t):
    emit_float_to_int(t)
    emit_int_to_float(t)
    emit_float_to_float(t)


def emit_float_to_int(t):
    for fmt, fname, reg in ((F32, "f32", "b32"), (F64, "f64", "b64"), (F16, "f16", "b16")):
        srcs = specials(fmt) + randoms(fmt, 20, -3, 12) + [bits_of(x, fmt) for x in (0.5, 1.5, 2.5, -0.5, -2.5, 2.4999, -1.0001)]
        srcs += [bits_of(x, fmt) for x in (2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63, 4e9, -129.0, 256.0, 70000.0)
                 if abs(x) <= float(fmt.maxf)]
        for iname, (ibits, _) in INTS.items():
            if ibits == 8:
                continue
            for irnd in ("rni", "rzi", "rmi", "rpi"):
                tpl = f"cvt.{irnd}.{iname}.{fname} %d:{REG[ibits]}, %a:{reg}"
                for a in srcs:
                    t.add(tpl, {"a": a}, {"d": to_int(decode(a, fmt), irnd, iname, fmt)}, ISA)
            if fmt is F32:  # .ftz: a subnormal source is zero before rounding
                for a in srcs:
                    t.add(f"cvt.rpi.ftz.{iname}.f32 %d:{REG[ibits]}, %a:b32", {"a": a},
                          {"d": to_int(ftz(decode(a, fmt), fmt), "rpi", iname, fmt)}, ISA)


def emit_int_to_float(t):
    for iname, (ibits, signed) in INTS.items():
        if ibits == 8:
            continue
        vals = [0, 1, 2, 3, (1 << ibits) - 1, 1 << (ibits - 1), (1 << (ibits - 1)) - 1, 0x1000001 & ((1 << ibits) - 1),
                0x1000003 & ((1 << ibits) - 1), 0x801 & ((1 << ibits) - 1)] + [RNG.getrandbits(ibits) for _ in range(20)]
        for fmt, fname, reg in ((F32, "f32", "b32"), (F64, "f64", "b64"), (F16, "f16", "b16")):
            for rnd in ("rn", "rz", "rm", "rp"):
                for a in vals:
                    n = a - (1 << ibits) if signed and a >> (ibits - 1) else a
                    d = encode(round_to(V.of(n), fmt, rnd), fmt)
                    t.add(f"cvt.{rnd}.{fname}.{iname} %d:{reg}, %a:{REG[ibits]}", {"a": a}, {"d": d}, ISA)


def _f2f(a, sf, df, rnd, flush=False, sat=False, satfinite=False, relu=False):
    v = decode(a, sf)
    # .ftz flushes an f32 subnormal source, except for an f16 destination: silicon rounds the f32
    # subnormal into f16 unflushed (cvt.rp.ftz.f16.f32 of 0x00000001 and of 0x007fffff give 0x0001,
    # cvt.rm.ftz.f16.f32 of 0x80000001 gives 0x8001), where the ISA's .ftz flushes f32 subnormal inputs;
    # a bf16 destination is flushed (cvt.rp.ftz.bf16.f32 of 0x00000001 gives 0). H100 run 2026-12-06
    # (tests/device/ptx_conformance_sm90, docs/ptx.md 'Conformance').
    if flush and sf is F32 and df is not F16:
        v = ftz(v, sf)
    r = round_to(v, df, rnd, satfinite)
    if flush and df is F32:
        r = ftz(r, df)
    if sat:
        r = V("num", 0, 0) if r.isnan() or r.sign else V("num", 0, 1) if r.isinf() or r.q > 1 else r
    if relu:
        if r.isnan():
            return encode(r, df) if df not in (F16, BF16) else 0x7FFF
        if r.sign:
            return 0
    return encode(r, df)


def emit_float_to_float(t):
    s32 = specials(F32) + randoms(F32, 20, -30, 30) + [0x3F801000, 0x3F801001, 0x3F800FFF, 0x3F803000, 0x33000000,
                                                       0x477FF000, 0x477FF001, 0x38800000, 0x387FC000, 0x33800001]
    s64 = specials(F64) + randoms(F64, 20, -140, 140) + [0x3FF0000010000000, 0x3FF0000030000000, 0x47EFFFFFF0000000]
    for rnd in ("rn", "rz", "rm", "rp"):
        for df, dn, dr in ((F16, "f16", "b16"), (BF16, "bf16", "b16")):
            for a in s32:
                t.add(f"cvt.{rnd}.{dn}.f32 %d:{dr}, %a:b32", {"a": a}, {"d": _f2f(a, F32, df, rnd)}, ISA, nan_check(dn))
        for mods, kw in (("", {}), (".ftz", {"flush": True}), (".sat", {"sat": True})):
            for a in s64:
                t.add(f"cvt.{rnd}{mods}.f32.f64 %d:b32, %a:b64", {"a": a}, {"d": _f2f(a, F64, F32, rnd, **kw)}, ISA,
                      nan_check("f32"))
    for a in s32:  # widening is exact; f32 .ftz flushes the source
        t.add("cvt.f64.f32 %d:b64, %a:b32", {"a": a}, {"d": _f2f(a, F32, F64, "rn")}, ISA, nan_check("f64"))
        t.add("cvt.ftz.f64.f32 %d:b64, %a:b32", {"a": a}, {"d": _f2f(a, F32, F64, "rn", flush=True)}, ISA, nan_check("f64"))
        for irnd in ("rni", "rzi", "rmi", "rpi"):  # round to integral value in f32
            v = decode(a, F32)
            d = a if v.kind != "num" or v.q == 0 else encode(_integral(v, irnd), F32)
            t.add(f"cvt.{irnd}.f32.f32 %d:b32, %a:b32", {"a": a}, {"d": d}, ISA, nan_check("f32"))
    for src, sn in ((F16, "f16"), (BF16, "bf16")):
        for a in specials(src) + randoms(src, 20):
            t.add(f"cvt.f32.{sn} %d:b32, %a:b16", {"a": a}, {"d": _f2f(a, src, F32, "rn")}, ISA, nan_check("f32"))
    emit_packed(t, s32)


def _integral(v, irnd):
    n = to_int(v, irnd, "s64") if abs(v.q) < 2 ** 62 else None
    if n is None:
        return v
    n = n - (1 << 64) if n >> 63 else n
    return V("num", v.sign, abs(mpq(n)))  # keeps the sign of a zero result (-0.4 -> -0)


def emit_packed(t, s32):
    """f16x2/bf16x2 from two f32 (a -> upper half), .relu and .satfinite; tf32."""
    pairs = list(zip(s32, s32[7:] + s32[:7]))
    for df, dn in ((F16, "f16"), (BF16, "bf16")):
        for rnd in ("rn", "rz"):
            for relu in ("", ".relu"):
                for sf in ("", ".satfinite"):
                    chk = "exact" if relu else nan_check(dn)
                    for a, b in pairs:
                        kw = {"satfinite": bool(sf), "relu": bool(relu)}
                        d = (_f2f(a, F32, df, rnd, **kw) << 16) | _f2f(b, F32, df, rnd, **kw)
                        t.add(f"cvt.{rnd}{relu}{sf}.{dn}x2.f32 %d:b32, %a:b32, %b:b32", {"a": a, "b": b}, {"d": d}, ISA, chk)
    # tf32: the low 13 bits of the container are not defined by the ISA, so only the top 19 compare.
    for tpl, rnd, sf in (("cvt.rna.tf32.f32", "rna", False), ("cvt.rna.satfinite.tf32.f32", "rna", True),
                         ("cvt.rn.satfinite.tf32.f32", "rn", True), ("cvt.rz.satfinite.tf32.f32", "rz", True)):
        for a in s32:
            if rnd == "rna":
                d = _rna_tf32(a, sf)
                nan = decode(d, F32).isnan()
            else:
                r = round_to(decode(a, F32), TF32, rnd, sf)
                nan = r.isnan()
                d = 0x7FFFFFFF if nan else encode(r, F32)
            t.add(f"{tpl} %d:b32, %a:b32", {"a": a}, {"d": d}, ISA, "nan:f32" if nan else "mask:ffffe000")


def _rna_tf32(a, satfinite):
    """cvt.rna{.satfinite}.tf32.f32 as silicon computes it: (u + 0x1000) & 0xFFFFE000 on a non-NaN u
    (the ISA's round to nearest, ties away, into tf32: checked against round_to below) and u & 0xFFFFE000
    on a NaN, so a NaN whose payload lies in the low 13 bits becomes an infinity (0x7f800001 ->
    0x7f800000, 0xff800001 -> 0xff800000) and one whose payload survives stays a NaN (0x7fc00000);
    .satfinite then turns that infinity into +-MAX_NORM (0x7f7fe000 / 0xff7fe000). The ISA says a NaN
    input gives a NaN: H100 run 2026-12-06 (tests/device/ptx_conformance_sm90, docs/ptx.md 'Conformance')."""
    v = decode(a, F32)
    if v.isnan():
        d = a & 0xFFFFE000
    else:
        d = (a + 0x1000) & 0xFFFFE000
        assert d == encode(round_to(v, TF32, "rna", False), F32) & 0xFFFFE000, hex(a)
    if satfinite and (d & 0x7FFFFFFF) == 0x7F800000:
        d = (d & 0x80000000) | 0x7F7FE000
    return d
