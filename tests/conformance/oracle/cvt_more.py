"""The cvt forms cvt.py and cvt_narrow.py leave: integer <-> integer (with .sat), integer -> float
for every width (8-bit and 64-bit sources included) and every rounding (the exact integer rounded
once), float -> integer with .ftz/.sat and from bf16, float -> float with .ftz/.sat, rounding to an
integral value with .ftz/.sat, and the packed forms from f16x2/bf16x2. Only forms no earlier family
wrote are generated. PTX ISA 9.7.9.21 cvt
(https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt).

Where the ISA says a rounding modifier is required but the interpreter takes the form without one
(cvt.f32.s32), the table expects the default of the floating-point instructions, .rn."""
from cvt import INTS, ISA, REG, _f2f, _integral, to_int
from cvt_narrow import narrow, ue8m0
from fp import BF16, F16, F32, F64, TF32, V, decode, encode, ftz, round_to
from table import RNG, bits_of, nan_check, randoms, specials

FLOATS = {"f16": (F16, "b16"), "bf16": (BF16, "b16"), "f32": (F32, "b32"), "f64": (F64, "b64")}
IRND = ("rni", "rzi", "rmi", "rpi")


def emit(t):
    have = {row.split(" ", 1)[0] for row in t.rows}

    def add(tpl, *args, **kw):
        if tpl.split(" ", 1)[0] not in have:
            t.add(tpl, *args, **kw)

    emit_int_int(add)
    emit_int_float(add)
    emit_float_int(add)
    emit_float_float(add)
    emit_packed(add)


def ival(a, name):
    bits, sgn = INTS[name]
    a &= (1 << bits) - 1
    return a - (1 << bits) if sgn and a >> (bits - 1) else a


def int_values(bits):
    m = (1 << bits) - 1
    edge = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
            1 << 32, (1 << 63) - 1, 1 << 63, m, m - 1, 0x1000001, 0x1000003, 0x801, 0x20000000000001, 0x20000000000003]
    return sorted({x & m for x in edge}) + [RNG.getrandbits(bits) for _ in range(6)]


def emit_int_int(add):
    """Narrowing chops, widening sign- or zero-extends by the source type; .sat clamps the source's
    value into the destination's range."""
    for s, (sb, _) in INTS.items():
        for d, (db, dsg) in INTS.items():
            lo, hi = (-(1 << (db - 1)), (1 << (db - 1)) - 1) if dsg else (0, (1 << db) - 1)
            for a in int_values(sb):
                x = ival(a, s)
                io = f"%d:{REG[db]}, %a:{REG[sb]}"
                add(f"cvt.{d}.{s} {io}", {"a": a}, {"d": x & ((1 << db) - 1)}, ISA)
                add(f"cvt.sat.{d}.{s} {io}", {"a": a}, {"d": max(lo, min(hi, x)) & ((1 << db) - 1)}, ISA)


def emit_int_float(add):
    for s, (sb, _) in INTS.items():
        for fname, (fmt, reg) in FLOATS.items():
            for rnd in ("", ".rn", ".rz", ".rm", ".rp"):
                for a in int_values(sb):
                    d = encode(round_to(V.of(ival(a, s)), fmt, rnd[1:] or "rn"), fmt)
                    add(f"cvt{rnd}.{fname}.{s} %d:{reg}, %a:{REG[sb]}", {"a": a}, {"d": d}, ISA)


def float_sources(fmt):
    xs = (0.5, 1.5, 2.5, -0.5, -2.5, -1.0001, 127.5, -128.5, 255.5, 32767.5, -32768.5, 65535.5, 2.0 ** 31, -2.0 ** 31,
          2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1e30)
    return specials(fmt) + randoms(fmt, 6, -3, 12) + [bits_of(x, fmt) for x in xs if abs(x) <= float(fmt.maxf)]


def emit_float_int(add):
    """Float -> integer rounds per .rni/.rzi/.rmi/.rpi and clamps to the destination's range (so
    .sat changes nothing); NaN as silicon converts it (cvt.nan_to_int: 1 << (bits - 1) for a 64-bit
    destination or an f64 source, else 0; the ISA says 0); .ftz (f32 source) reads a subnormal as zero."""
    for fname, (fmt, reg) in FLOATS.items():
        srcs = float_sources(fmt)
        for iname, (ib, _) in INTS.items():
            for irnd in IRND:
                for fz in (("", ".ftz") if fmt is F32 else ("",)):
                    for sat in ("", ".sat"):
                        for a in srcs:
                            v = decode(a, fmt)
                            v = ftz(v, fmt) if fz else v
                            add(f"cvt.{irnd}{fz}{sat}.{iname}.{fname} %d:{REG[ib]}, %a:{reg}", {"a": a},
                                {"d": to_int(v, irnd, iname, fmt)}, ISA)


def _sat(r):
    """.sat on a float result: clamp to [0.0, 1.0], NaN -> +0 (PTX ISA cvt)."""
    if r.isnan() or r.sign:
        return V("num", 0, 0)
    return V("num", 0, 1) if r.isinf() or r.q > 1 else r


def _integral_bits(a, fmt, irnd, fz, sat):
    v = decode(a, fmt)
    if fz:
        v = ftz(v, fmt)
    r = v if v.kind != "num" or v.q == 0 else _integral(v, irnd)
    if sat:
        r = _sat(r)
    return encode(r, fmt, a if r.isnan() else None)


def emit_float_float(add):
    s32 = specials(F32) + randoms(F32, 10, -30, 30) + [0x3F801000, 0x3F801001, 0x477FF000, 0x38800000, 0x387FC000,
                                                       0x33800001, 0x3F800001, 0x3F7FFFFF]
    s64 = specials(F64) + randoms(F64, 10, -140, 140) + [0x3FF0000010000000, 0x47EFFFFFF0000000, 0x3FF0000000000001]
    for df, dn in ((F16, "f16"), (BF16, "bf16"), (F32, "f32")):
        for sf, sn, srcs in ((F32, "f32", s32), (F64, "f64", s64)):
            if df is sf:
                continue
            for rnd in ("rn", "rz", "rm", "rp"):
                for fz in ("", ".ftz"):
                    for sat in ("", ".sat"):
                        for a in srcs:
                            d = _f2f(a, sf, df, rnd, flush=bool(fz), sat=bool(sat))
                            add(f"cvt.{rnd}{fz}{sat}.{dn}.{sn} %d:{FLOATS[dn][1]}, %a:{FLOATS[sn][1]}", {"a": a}, {"d": d},
                                ISA, nan_check(dn))
    for sf, sn in ((F16, "f16"), (BF16, "bf16"), (F32, "f32")):
        srcs = s32 if sf is F32 else specials(sf) + randoms(sf, 10)
        for dn in ("f32", "f64"):
            df = FLOATS[dn][0]
            for fz in (("", ".ftz") if dn == "f32" or sf is F32 else ("",)):
                for sat in (("", ".sat") if dn == "f32" or sf is F32 else ("",)):
                    for a in srcs:
                        d = _f2f(a, sf, df, "rn", flush=bool(fz), sat=bool(sat))
                        add(f"cvt{fz}{sat}.{dn}.{sn} %d:{FLOATS[dn][1]}, %a:{FLOATS[sn][1]}", {"a": a}, {"d": d}, ISA,
                            nan_check(dn))
    for irnd in IRND:  # round to an integral value in the same format
        for fz, sat in (("", ""), (".ftz", ""), ("", ".sat"), (".ftz", ".sat")):
            for a in s32:
                add(f"cvt.{irnd}{fz}{sat}.f32.f32 %d:b32, %a:b32", {"a": a},
                    {"d": _integral_bits(a, F32, irnd, bool(fz), bool(sat))}, ISA, nan_check("f32"))
            if not fz:
                for a in s64:
                    add(f"cvt.{irnd}{sat}.f64.f64 %d:b64, %a:b64", {"a": a},
                        {"d": _integral_bits(a, F64, irnd, False, bool(sat))}, ISA, nan_check("f64"))
    for rnd in ("rn", "rz"):  # .relu: negative -> +0, NaN -> the canonical NaN
        for dn, df in (("f16", F16), ("bf16", BF16)):
            for a in s32:
                add(f"cvt.{rnd}.relu.{dn}.f32 %d:b16, %a:b32", {"a": a}, {"d": _f2f(a, F32, df, rnd, relu=True)}, ISA)


def _lanes_f32(x, fmt):
    """The two 16-bit lanes of x as f32 bits (exact), high lane first."""
    return [encode(round_to(decode((x >> s) & 0xFFFF, fmt), F32, "rn"), F32, 0x7FFFFFFF) for s in (16, 0)]


def emit_packed(add):
    h = specials(F16) + randoms(F16, 10, -8, 10) + [bits_of(x, F16) for x in (448.0, 464.0, 480.0, 57344.0, 2.0 ** -9)]
    for relu in ("", ".relu"):
        for name in ("e4m3", "e5m2"):
            fmt = {"e4m3": __import__("fp").E4M3, "e5m2": __import__("fp").E5M2}[name]
            for a, b in zip(h, h[3:] + h[:3]):
                hi, lo = _lanes_f32(a << 16 | b, F16)
                d = narrow(hi, fmt, relu) << 8 | narrow(lo, fmt, relu)
                add(f"cvt.rn.satfinite{relu}.{name}x2.f16x2 %d:b16, %a:b32", {"a": a << 16 | b}, {"d": d}, ISA, f"nan:{name}")
    bf = specials(BF16) + randoms(BF16, 16, -100, 100) + [0x3F80, 0x3F81, 0x7F00, 0x7F01]
    for rnd in ("rz", "rp"):
        for sf in ("", ".satfinite"):
            for a, b in zip(bf, bf[3:] + bf[:3]):
                hi, lo = _lanes_f32(a << 16 | b, BF16)
                x, y = ue8m0(hi, rnd, bool(sf)), ue8m0(lo, rnd, bool(sf))
                if x is not None and y is not None:
                    add(f"cvt.{rnd}{sf}.ue8m0x2.bf16x2 %d:b16, %a:b32", {"a": a << 16 | b}, {"d": x << 8 | y}, ISA, "exact", 100)
    for a in specials(F32) + randoms(F32, 16):  # tf32: only the top 19 bits are defined
        r = round_to(decode(a, F32), TF32, "rn")
        add("cvt.rn.tf32.f32 %d:b32, %a:b32", {"a": a}, {"d": 0x7FFFFFFF if r.isnan() else encode(r, F32)}, ISA,
            "nan:f32" if r.isnan() else "mask:ffffe000")
