"""Rows of the conformance table and the operand values every family draws from.

A row (see generate.py for the format) is built by Table.add from a template, the source and
destination values as integers, the check, the minimum sm and the ISA reference.
"""
import random
import re

from fp import CANONICAL_NAN, F16, F32, F64, BF16, V, decode, encode, round_to

DOCS = "https://docs.nvidia.com/cuda/parallel-thread-execution/"
_PLACEHOLDER = re.compile(r"%(\w+):(b8|b16|b32|b64|pred)")
WIDTH = {"b8": 8, "b16": 16, "b32": 32, "b64": 64, "pred": 1}


class Table:
    def __init__(self):
        self.rows = []
        self._widths = {}

    def add(self, template, ins, outs, isa, check="exact", sm=90):
        """ins/outs: {placeholder: int}; isa: (section, anchor). Values are masked to their width."""
        widths = self._widths.get(template)
        if widths is None:
            widths = {n: WIDTH[t] for n, t in _PLACEHOLDER.findall(template)}
            self._widths[template] = widths
        assert set(ins) | set(outs) == set(widths), (template, ins, outs)

        def text(values):
            return " ".join(f"{n}={fmt_bits(v, widths[n])}" for n, v in values.items())

        section, anchor = isa
        self.rows.append(f"{template} | {text(ins)} | {text(outs)} | {check} | {sm} | {section} {DOCS}#{anchor}")


def fmt_bits(v, width):
    v &= (1 << width) - 1 if width > 1 else 1
    return str(v) if width == 1 else f"0x{v:0{max(1, width // 4)}x}"


def nan_check(lane):
    """The check for a float result: NaN lanes accept any NaN (the ISA does not fix the payload)."""
    return f"nan:{lane}"


# ---- operand values ---------------------------------------------------------------------------
RNG = random.Random(20260101)


def specials(fmt):
    """The bit patterns every float form sees: zeros, min/max subnormal, min normal, one, ties'
    neighbours, max finite, infinities and a quiet and a payload NaN, each with both signs."""
    eb = {"f64": 11, "f32": 8, "f16": 5, "bf16": 8}[fmt.name]
    mb = fmt.bits - 1 - eb
    one = ((1 << (eb - 1)) - 1) << mb
    pos = [0, 1, (1 << mb) - 1, 1 << mb, one, one + 1, one | (1 << (mb - 1)), ((1 << eb) - 2) << mb | ((1 << mb) - 1),
           ((1 << eb) - 1) << mb, (((1 << eb) - 1) << mb) | (1 << (mb - 1)), (((1 << eb) - 1) << mb) | 1]
    sign = 1 << (fmt.bits - 1)
    return pos + [p | sign for p in pos]


def randoms(fmt, n, lo_exp=-20, hi_exp=20):
    """n seeded random finite values of fmt, both signs, exponents in [lo_exp, hi_exp]."""
    out = []
    eb = {"f64": 11, "f32": 8, "f16": 5, "bf16": 8}[fmt.name]
    mb, bias = fmt.bits - 1 - eb, (1 << (eb - 1)) - 1
    for _ in range(n):
        e = RNG.randint(max(lo_exp, 1 - bias), min(hi_exp, bias))
        out.append((RNG.getrandbits(1) << (fmt.bits - 1)) | ((e + bias) << mb) | RNG.getrandbits(mb))
    return out


def bits_of(x, fmt):
    """The bits of the float x (Python float or rational), rounded to nearest into fmt."""
    from gmpy2 import mpq
    v = V.of(mpq(x)) if not isinstance(x, V) else x
    return encode(round_to(v, fmt, "rn"), fmt)


__all__ = ["Table", "fmt_bits", "nan_check", "specials", "randoms", "bits_of", "RNG", "decode", "encode",
           "CANONICAL_NAN", "F16", "F32", "F64", "BF16"]
