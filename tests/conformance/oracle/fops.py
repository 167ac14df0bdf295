"""IEEE 754-2008 arithmetic on exact values: each operation's exact result (special cases from
IEEE 754 section 6 and 7, which the PTX ISA's floating-point instructions follow, e.g.
https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-add), then one
rounding into the destination format with the PTX modifiers .ftz and .sat applied.
"""
from math import isqrt

from gmpy2 import mpq

from fp import NAN, V, decode, encode, ftz, pinf, round_to


def _zero_sum_sign(x, y, rnd):
    """The sign of an exact zero sum (IEEE 754 6.3): like-signed zeros keep it, otherwise +0
    except in round-toward-negative."""
    if x.iszero() and y.iszero() and x.sign == y.sign:
        return x.sign
    return 1 if rnd == "rm" else 0


def add(x, y, rnd):
    """Exact x + y as a V with the zero sign already fixed for rnd."""
    if x.isnan() or y.isnan():
        return NAN
    if x.isinf() or y.isinf():
        if x.isinf() and y.isinf() and x.sign != y.sign:
            return NAN
        return x if x.isinf() else y
    s = x.signed() + y.signed()
    if s == 0:
        return V("num", _zero_sum_sign(x, y, rnd), 0)
    return V.of(s)


def mul(x, y):
    if x.isnan() or y.isnan():
        return NAN
    sign = x.sign ^ y.sign
    if x.isinf() or y.isinf():
        return NAN if x.iszero() or y.iszero() else pinf(sign)
    return V("num", sign, x.q * y.q)


def fma(a, b, c, rnd):
    """a*b + c with no rounding of the product (PTX fma: "computes a*b+c in infinite precision")."""
    return add(mul(a, b), c, rnd)


def div(x, y):
    if x.isnan() or y.isnan():
        return NAN
    sign = x.sign ^ y.sign
    if x.isinf():
        return NAN if y.isinf() else pinf(sign)
    if y.isinf():
        return V("num", sign, 0)
    if y.iszero():
        return NAN if x.iszero() else pinf(sign)
    return V("num", sign, x.q / y.q)


def sqrt(x):
    """Square root as a V whose q lies strictly between the true root's neighbours at 2^-1200
    resolution, so one later rounding to <= 64 bits is the correct rounding (no tie is possible
    unless the root is exact, and then q is exact)."""
    if x.isnan() or (x.sign and not x.iszero()):
        return NAN
    if x.isinf() or x.iszero():
        return x
    k = 1200  # 2^-1200 resolves the root of the least f64 subnormal (2^-537) to ~660 bits
    n = x.q.numerator * (1 << (2 * k)) // x.q.denominator
    r = isqrt(n)
    exact = r * r == n and (x.q.numerator * (1 << (2 * k))) % x.q.denominator == 0
    return V("num", 0, mpq(r, 1 << k) if exact else mpq(2 * r + 1, 1 << (k + 1)))


def finish(v, fmt, rnd, flush=False, sat=False):
    """One rounding into fmt, then .ftz (a subnormal result becomes a signed zero) and .sat
    (clamp to [0, 1], NaN to +0: PTX ISA #floating-point-instructions-add, "Saturation")."""
    r = round_to(v, fmt, rnd)
    if flush:
        r = ftz(r, fmt)
    if sat:
        if r.isnan():
            return V("num", 0, 0)
        if r.sign:
            return V("num", 0, 0)
        if r.isinf() or r.q > 1:
            return V("num", 0, 1)
    return r


def run(op, srcs, fmt, rnd, flush=False, sat=False, src_fmt=None):
    """Decode srcs (bits, in src_fmt or fmt), flush subnormal inputs for .ftz, apply op, round.
    Returns (bits, is_nan)."""
    src_fmt = src_fmt or fmt
    vals = [decode(b, f) for b, f in zip(srcs, src_fmt if isinstance(src_fmt, list) else [src_fmt] * len(srcs))]
    if flush:
        vals = [ftz(v, f) for v, f in zip(vals, src_fmt if isinstance(src_fmt, list) else [src_fmt] * len(vals))]
    exact = {"add": lambda a, b: add(a, b, rnd), "sub": lambda a, b: add(a, b.neg(), rnd), "mul": mul,
             "fma": lambda a, b, c: fma(a, b, c, rnd), "div": div, "sqrt": sqrt,
             "rcp": lambda a: div(V.of(1), a)}[op](*vals)
    r = finish(exact, fmt, rnd, flush, sat)
    return encode(r, fmt), r.isnan()
