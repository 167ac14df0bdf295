"""Exact floating-point values and IEEE-754 rounding for every PTX data type the oracle needs.

Values are exact rationals (gmpy2.mpq) with a separate sign, so -0 survives; the rounding below
is written from IEEE 754-2008 section 4 (the PTX ISA's "Floating-Point" chapter defers to it:
https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point) and is checked at import
against MPFR (gmpy2 contexts) so a slip in it cannot pass silently. FP8/FP6/FP4/UE8M0 values come
from ml_dtypes' own decoders, never from a formula here.
"""
import gmpy2
import ml_dtypes
import numpy as np
from gmpy2 import mpq


class V:
    """A float datum: kind 'num' (q >= 0 the magnitude), 'inf' or 'nan'; sign 0/1."""
    __slots__ = ("kind", "sign", "q")

    def __init__(self, kind, sign=0, q=mpq(0)):
        self.kind, self.sign, self.q = kind, sign, mpq(q)

    @staticmethod
    def of(x):
        """A V from a signed rational (0 becomes +0)."""
        x = mpq(x)
        return V("num", 1 if x < 0 else 0, abs(x))

    def signed(self):
        return -self.q if self.sign else self.q

    def isnan(self):
        return self.kind == "nan"

    def isinf(self):
        return self.kind == "inf"

    def iszero(self):
        return self.kind == "num" and self.q == 0

    def neg(self):
        return V(self.kind, self.sign ^ 1, self.q)

    def __repr__(self):
        return f"V({self.kind},{'-' if self.sign else '+'},{float(self.q)})"


NAN = V("nan")


def pinf(sign=0):
    return V("inf", sign)


class Fmt:
    """A binary format: p significand bits (hidden bit included), emin the least normal exponent,
    maxf the largest finite magnitude; ieee formats have inf and a NaN space."""

    def __init__(self, name, bits, p, emin, maxf, ieee=True, codes=None):
        self.name, self.bits, self.p, self.emin, self.maxf, self.ieee = name, bits, p, emin, mpq(maxf), ieee
        self.codes = codes  # small formats: {magnitude: code} for the non-negative finite values

    def is_sub(self, v):
        return v.kind == "num" and 0 < v.q < mpq(2) ** self.emin


def _ieee(name, bits, ebits, p):
    bias = (1 << (ebits - 1)) - 1
    return Fmt(name, bits, p, 1 - bias, (2 - mpq(2) ** (1 - p)) * mpq(2) ** bias)


F64, F32, F16, BF16 = _ieee("f64", 64, 11, 53), _ieee("f32", 32, 8, 24), _ieee("f16", 16, 5, 11), _ieee("bf16", 16, 8, 8)
TF32 = Fmt("tf32", 32, 11, -126, (2 - mpq(2) ** -10) * mpq(2) ** 127)  # stored in an f32 container


def _floor_log2(q):
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while mpq(2) ** e > q:
        e -= 1
    while mpq(2) ** (e + 1) <= q:
        e += 1
    return e


def round_mag(q, p, emin, rnd, sign):
    """|x| = q rounded to p bits with least normal exponent emin (subnormals below it) and an
    unbounded exponent above; rnd in rn (ties to even), rna (ties away), rz, rm, rp."""
    if q == 0:
        return mpq(0)
    e = max(_floor_log2(q), emin)
    quantum = mpq(2) ** (e - (p - 1))
    scaled = q / quantum
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    up = {"rn": rem > mpq(1, 2) or (rem == mpq(1, 2) and n % 2 == 1), "rna": rem >= mpq(1, 2), "rz": False,
          "rm": sign == 1 and rem > 0, "rp": sign == 0 and rem > 0}[rnd]
    return (n + up) * quantum


def round_to(v, fmt, rnd="rn", satfinite=False):
    """v rounded into fmt: a V. Overflow follows IEEE 754 section 7.4 for the rounding direction
    (PTX ISA cvt: the same for every format with an infinity); .satfinite clamps to +-maxf."""
    if v.kind != "num":
        if v.kind == "inf" and (satfinite or not fmt.ieee):
            return V("num", v.sign, fmt.maxf)
        return v
    r = round_mag(v.q, fmt.p, fmt.emin, rnd, v.sign)
    if r > fmt.maxf:
        to_inf = {"rn": True, "rna": True, "rz": False, "rm": v.sign == 1, "rp": v.sign == 0}[rnd]
        if satfinite or not to_inf or not fmt.ieee:
            return V("num", v.sign, fmt.maxf)
        return pinf(v.sign)
    return V("num", v.sign, r)


def ftz(v, fmt):
    """.ftz: a subnormal becomes a zero of the same sign (PTX ISA #floating-point-instructions)."""
    return V("num", v.sign, 0) if fmt.is_sub(v) else v


# ---- bits <-> V -------------------------------------------------------------------------------
_IEEE_LAYOUT = {"f64": (11, 52), "f32": (8, 23), "f16": (5, 10), "bf16": (8, 7), "tf32": (8, 23)}


def decode(bits, fmt):
    if fmt.name in _IEEE_LAYOUT:
        eb, mb = _IEEE_LAYOUT[fmt.name]
        sign, e, m = (bits >> (eb + mb)) & 1, (bits >> mb) & ((1 << eb) - 1), bits & ((1 << mb) - 1)
        if e == (1 << eb) - 1:
            return V("inf", sign) if m == 0 else V("nan", sign)
        bias = (1 << (eb - 1)) - 1
        q = mpq(m, 1 << mb) * mpq(2) ** (1 - bias) if e == 0 else (1 + mpq(m, 1 << mb)) * mpq(2) ** (e - bias)
        return V("num", sign, q)
    return SMALL_DECODE[fmt.name][bits]


def encode(v, fmt, nan_bits=None):
    """The bits of v (already representable in fmt). NaN: nan_bits, else fmt's canonical NaN."""
    if fmt.name in _IEEE_LAYOUT:
        eb, mb = _IEEE_LAYOUT[fmt.name]
        if v.kind == "nan":
            return CANONICAL_NAN[fmt.name] if nan_bits is None else nan_bits
        s = v.sign << (eb + mb)
        if v.kind == "inf":
            return s | (((1 << eb) - 1) << mb)
        if v.q == 0:
            return s
        bias = (1 << (eb - 1)) - 1
        e = _floor_log2(v.q)
        if e < 1 - bias:  # subnormal
            m = v.q / mpq(2) ** (1 - bias) * (1 << mb)
            assert m.denominator == 1, (v, fmt.name)
            return s | int(m)
        m = (v.q / mpq(2) ** e - 1) * (1 << mb)
        assert m.denominator == 1 and e + bias < (1 << eb) - 1, (v, fmt.name)
        return s | ((e + bias) << mb) | int(m)
    if v.kind == "nan":
        return SMALL_NAN[fmt.name]
    if v.kind == "inf":
        return SMALL_INF[fmt.name] | (v.sign << (fmt.bits - 1))
    code = fmt.codes[v.q]
    return code | (v.sign << (fmt.bits - 1)) if fmt.name != "ue8m0" else code


# The canonical NaNs NVIDIA documents (PTX ISA #floating-point-instructions: "canonical NaN").
CANONICAL_NAN = {"f64": 0x7FFFFFFFFFFFFFFF, "f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF, "tf32": 0x7FFFFFFF}


def _small(name, dtype, bits):
    """A small format from ml_dtypes: every code decoded by ml_dtypes itself."""
    decoded, codes = {}, {}
    for c in range(1 << bits):
        f = float(np.array([c], dtype=np.uint8).view(dtype)[0])
        if np.isnan(f):
            decoded[c] = V("nan")
        elif np.isinf(f):
            decoded[c] = V("inf", 1 if f < 0 else 0)
        else:
            v = V.of(mpq(*f.as_integer_ratio()))
            if f == 0 and np.signbit(f):
                v = V("num", 1, 0)
            decoded[c] = v
            if v.sign == 0 and v.q not in codes:
                codes[v.q] = c
    return decoded, codes


SMALL_DECODE, SMALL = {}, {}
SMALL_NAN = {"e4m3": 0x7F, "e5m2": 0x7F, "ue8m0": 0xFF}
SMALL_INF = {"e5m2": 0x7C}
for _name, _dt, _bits, _p, _emin, _ieee_fmt in [
        ("e4m3", ml_dtypes.float8_e4m3fn, 8, 4, -6, False), ("e5m2", ml_dtypes.float8_e5m2, 8, 3, -14, True),
        ("e2m3", ml_dtypes.float6_e2m3fn, 6, 4, 0, False), ("e3m2", ml_dtypes.float6_e3m2fn, 6, 3, -2, False),
        ("e2m1", ml_dtypes.float4_e2m1fn, 4, 2, 0, False), ("ue8m0", ml_dtypes.float8_e8m0fnu, 8, 1, -127, False)]:
    _dec, _codes = _small(_name, _dt, _bits)
    SMALL_DECODE[_name] = _dec
    SMALL[_name] = Fmt(_name, _bits, _p, _emin, max(_codes), _ieee_fmt, _codes)
E4M3, E5M2, E2M3, E3M2, E2M1, UE8M0 = (SMALL[n] for n in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "ue8m0"))
FORMATS = {f.name: f for f in (F64, F32, F16, BF16, TF32, E4M3, E5M2, E2M3, E3M2, E2M1, UE8M0)}


def _self_check():
    """round_to against MPFR (gmpy2 contexts with IEEE exponent ranges) on f16/f32 for all modes."""
    import random
    rng = random.Random(7)
    modes = {"rn": gmpy2.RoundToNearest, "rz": gmpy2.RoundToZero, "rm": gmpy2.RoundDown, "rp": gmpy2.RoundUp}
    for fmt, emax in ((F32, 128), (F16, 16)):
        for _ in range(60):
            x = mpq(rng.getrandbits(60) - (1 << 59), 1 << rng.randint(0, 200)) * (1 if rng.random() < .5 else 2 ** 100)
            for m, mode in modes.items():
                ctx = gmpy2.context(precision=fmt.p, emin=fmt.emin - fmt.p + 2, emax=emax, subnormalize=True, round=mode)
                with gmpy2.local_context(ctx):
                    ref = gmpy2.mpfr(x)  # mpfr_set_q: one correct rounding, then subnormalized
                mine = round_to(V.of(x), fmt, m)
                if gmpy2.is_infinite(ref):
                    assert mine.kind == "inf", (x, m)
                else:
                    assert mine.kind == "num" and mine.signed() == mpq(ref), (float(x), m, mine, ref)


_self_check()
