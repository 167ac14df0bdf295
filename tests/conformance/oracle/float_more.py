"""The float forms the other families leave: spellings the ISA defines as another form (the
default rounding .rn; mad.rnd = fma.rnd), f16/bf16 neg/abs, div.full/div.approx, the .approx
functions at f64/f16/bf16, and setp on floats in every shape. Runs after the other families,
since the aliases copy their rows. PTX ISA 9.7.3 (floating point), 9.7.4 (half precision),
9.7.5 (comparison)."""
import gmpy2
from gmpy2 import mpq

from fops import run
from fp import BF16, F16, F32, F64, V, decode, encode, ftz, round_to
from integer import setp_rows
from special import _cmp
from table import RNG, bits_of, nan_check, randoms, specials

FP = lambda i, op: (f"9.7.3.{i} {op}", f"floating-point-instructions-{op}")
HALF = lambda i, op: (f"9.7.4.{i} {op}", f"half-precision-floating-point-instructions-{op}")
CMP = lambda i, op: (f"9.7.5.{i} {op}", f"comparison-and-selection-instructions-{op}")

# (the spelling, the form it means, why): the ISA's default rounding for add/sub/mul is .rn
# ("rounding modifier ... default .rn"), and mad.rnd.{f32,f64} is the same operation as fma.rnd.
ALIASES = [(f"{op}{fz}{st}.{ty}", f"{op}.rn{fz}{st}.{ty}") for op in ("add", "sub", "mul")
           for fz, st, ty in (("", "", "f32"), (".ftz", "", "f32"), ("", ".sat", "f32"), (".ftz", ".sat", "f32"),
                              ("", "", "f64"), ("", "", "f32x2"), ("", "", "f16"), ("", "", "f16x2"), ("", ".sat", "f16"),
                              ("", ".sat", "f16x2"), ("", "", "bf16"), ("", "", "bf16x2"))]
# the mixed-precision add/sub (f32 = f32 +- f16/bf16) and the f32x2 .ftz forms without a rounding
# modifier: the same default .rn (PTX ISA 9.7.3.1/2/5)
ALIASES += [(f"{op}{st}.f32.{h}", f"{op}.rn{st}.f32.{h}") for op in ("add", "sub") for st in ("", ".sat")
            for h in ("f16", "bf16")]
ALIASES += [(f"{op}.ftz.f32x2", f"{op}.rn.ftz.f32x2") for op in ("add", "sub", "mul")]
ALIASES += [(f"{op}{m}.{ty}", f"{op}.rn{m}.{ty}") for op in ("add", "sub", "mul") for m in (".ftz", ".ftz.sat")
            for ty in ("f16", "f16x2")]
ALIASES += [(f"mad.{r}{fz}{st}.{ty}", f"fma.{r}{fz}{st}.{ty}") for r in ("rn", "rz", "rm", "rp")
            for fz, st, ty in (("", "", "f32"), (".ftz", "", "f32"), ("", ".sat", "f32"), (".ftz", ".sat", "f32"),
                               ("", "", "f64"))]


def emit_aliases(t, limit=40):
    """Each alias gets up to `limit` of its meaning's rows, its own opcode in front."""
    by_op = {}
    for row in t.rows:
        by_op.setdefault(row.split(" ", 1)[0], []).append(row)
    for spelled, meaning in ALIASES:
        for row in by_op.get(meaning, [])[:limit]:
            t.rows.append(spelled + row[len(meaning):])
    # cvt's .relu and .satfinite in either order are one operation (PTX ISA 9.7.9.21 cvt lists
    # both modifiers; their order carries no meaning): each order gets the other's rows
    for op in list(by_op):
        for a, b in ((".relu.satfinite.", ".satfinite.relu."), (".satfinite.relu.", ".relu.satfinite.")):
            other = op.replace(a, b)
            if op.startswith("cvt.") and a in op and other not in by_op:
                for row in by_op[op][:limit]:
                    t.rows.append(other + row[len(op):])


def emit(t):
    emit_aliases(t)
    emit_half_sign(t)
    emit_div_approx(t)
    emit_approx(t)
    emit_setp(t)


def emit_half_sign(t):
    """neg/abs on f16/bf16 (and x2 lanes): the sign bit alone; NaN lanes any NaN (PTX ISA 9.7.4.5/6)."""
    for fmt, name in ((F16, "f16"), (BF16, "bf16")):
        vs = specials(fmt) + randoms(fmt, 8)
        # .ftz (f16 only): a subnormal source is flushed to a zero of its sign first (PTX ISA 9.7.4.5/6)
        flush = lambda h: h & 0x8000 if (h & 0x7C00) == 0 else h
        for ftz in ("", ".ftz") if fmt is F16 else ("",):
            f = flush if ftz else (lambda h: h)
            for a in vs:
                t.add(f"neg{ftz}.{name} %d:b16, %a:b16", {"a": a}, {"d": f(a) ^ 0x8000}, HALF(5, "neg"), nan_check(name))
                t.add(f"abs{ftz}.{name} %d:b16, %a:b16", {"a": a}, {"d": f(a) & 0x7FFF}, HALF(6, "abs"), nan_check(name))
            for a, b in zip(vs, vs[5:] + vs[:5]):
                x, fx = a | b << 16, f(a) | f(b) << 16
                t.add(f"neg{ftz}.{name}x2 %d:b32, %a:b32", {"a": x}, {"d": fx ^ 0x80008000}, HALF(5, "neg"),
                      nan_check(name))
                t.add(f"abs{ftz}.{name}x2 %d:b32, %a:b32", {"a": x}, {"d": fx & 0x7FFF7FFF}, HALF(6, "abs"),
                      nan_check(name))


def _f32(x):
    return float(decode(x, F32).signed())


def emit_div_approx(t):
    """div.full.f32 (2 ulp over the full range) and div.approx.f32 (2 ulp for |b| in
    [2^-126, 2^126]) against the exact quotient rounded to nearest; operands and quotients kept
    normal, so .ftz changes nothing (PTX ISA 9.7.3.8)."""
    for _ in range(30):
        a = bits_of(RNG.choice((1, -1)) * 2.0 ** RNG.uniform(-40, 40), F32)
        b = bits_of(RNG.choice((1, -1)) * 2.0 ** RNG.uniform(-40, 40), F32)
        q = decode(a, F32).signed() / decode(b, F32).signed()
        d = encode(round_to(V.of(q), F32, "rn"), F32)
        for form in ("div.full.f32", "div.full.ftz.f32", "div.approx.f32", "div.approx.ftz.f32"):
            t.add(f"{form} %d:b32, %a:b32, %b:b32", {"a": a, "b": b}, {"d": d}, FP(8, "div"), "approx:f32:ulp=2.5")
    for rnd in ("rz", "rm", "rp"):  # div.rnd.ftz.f32: IEEE division with subnormals flushed
        for a, b in zip(specials(F32) + randoms(F32, 10), randoms(F32, 10) + specials(F32)):
            d, _ = run("div", [a, b], F32, rnd, True, False)
            t.add(f"div.{rnd}.ftz.f32 %d:b32, %a:b32, %b:b32", {"a": a, "b": b}, {"d": d}, FP(8, "div"), nan_check("f32"))


# form: (function, fmt, lanes, kind, bound, input range, section). The ISA's bounds: ex2.approx.f32
# 2 ulp; ex2 .f16 rel 2^-9.9, .bf16 rel 2^-7; tanh .f16 rel 2^-10.987, .bf16 rel 2^-8; the f64
# approximations (rcp.approx.ftz.f64, rsqrt.approx.f64) carry no number in the ISA, so the table
# asks for 2^-19 relative, what their use as a seed for Newton steps needs. Each widened by half an
# ulp of the result type for the rounding of the expected value.
APPROX = {
    "ex2.approx.f32": (gmpy2.exp2, F32, 1, "ulp", 2.5, (-6, 6), FP(21, "ex2")),
    "ex2.approx.f16": (gmpy2.exp2, F16, 1, "rel", 2 ** -9.9 + 2 ** -11, (-6, 6), HALF(10, "ex2")),
    "ex2.approx.f16x2": (gmpy2.exp2, F16, 2, "rel", 2 ** -9.9 + 2 ** -11, (-6, 6), HALF(10, "ex2")),
    "ex2.approx.ftz.bf16": (gmpy2.exp2, BF16, 1, "rel", 2 ** -7 + 2 ** -8, (-6, 6), HALF(10, "ex2")),
    "ex2.approx.ftz.bf16x2": (gmpy2.exp2, BF16, 2, "rel", 2 ** -7 + 2 ** -8, (-6, 6), HALF(10, "ex2")),
    "tanh.approx.f16": (gmpy2.tanh, F16, 1, "rel", 2 ** -10.987 + 2 ** -11, (-4, 4), FP(22, "tanh")),
    "tanh.approx.f16x2": (gmpy2.tanh, F16, 2, "rel", 2 ** -10.987 + 2 ** -11, (-4, 4), FP(22, "tanh")),
    "tanh.approx.bf16": (gmpy2.tanh, BF16, 1, "rel", 2 ** -8 + 2 ** -8, (-4, 4), FP(22, "tanh")),
    "tanh.approx.bf16x2": (gmpy2.tanh, BF16, 2, "rel", 2 ** -8 + 2 ** -8, (-4, 4), FP(22, "tanh")),
    "rcp.approx.ftz.f64": (lambda x: 1 / x, F64, 1, "rel", 2 ** -19, None, FP(13, "rcp")),
    "rsqrt.approx.f64": (gmpy2.rec_sqrt, F64, 1, "rel", 2 ** -19, None, FP(16, "rsqrt")),
    "rsqrt.approx.ftz.f64": (gmpy2.rec_sqrt, F64, 1, "rel", 2 ** -19, None, FP(16, "rsqrt")),
}


def _approx_input(fmt, rng, name):
    if rng is not None:
        return bits_of(RNG.uniform(*rng), fmt)
    sign = -1 if name.startswith("rcp") and RNG.random() < .5 else 1
    return bits_of(sign * 2.0 ** RNG.uniform(-60, 60), fmt)


def emit_approx(t):
    gmpy2.get_context().precision = 200
    for name, (f, fmt, lanes, kind, bound, rng, sec) in APPROX.items():
        reg = {16: "b16", 32: "b32", 64: "b64"}[fmt.bits * lanes]
        lane = fmt.name
        for _ in range(24):
            a = d = 0
            for i in range(lanes):
                x = _approx_input(fmt, rng, name)
                exact = f(gmpy2.mpfr(decode(x, fmt).signed()))
                a |= x << (16 * i)
                d |= encode(round_to(V.of(mpq(exact)), fmt, "rn"), fmt) << (16 * i)
            t.add(f"{name} %d:{reg}, %a:{reg}", {"a": a}, {"d": d}, sec, f"approx:{lane}:{kind}={bound!r}")


def emit_setp(t):
    """setp on f32 (with and without .ftz), f64 in all four shapes, and on f16/bf16 (p only); .ftz
    flushes subnormal sources to zero before comparing (PTX ISA 9.7.5.2)."""
    ops = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
    for fmt, name, reg, forms in ((F32, "f32", "b32", ("f32", "ftz.f32")), (F64, "f64", "b64", ("f64",)),
                                  (F16, "f16", "b16", ("f16",)), (BF16, "bf16", "b16", ("bf16",))):
        sp = specials(fmt)
        vs = [sp[0], sp[1], sp[4], sp[8], sp[9], sp[11], sp[12], sp[15], sp[19]] + randoms(fmt, 3)
        pairs = list(zip(vs, vs[1:] + vs[:1])) + [(vs[0], vs[5]), (vs[1], vs[0]), (vs[2], vs[2])]
        for form in forms:
            fl = form.startswith("ftz")
            for op in ops:
                srcs = []
                for a, b in pairs:
                    x, y = decode(a, fmt), decode(b, fmt)
                    if fl:
                        x, y = ftz(x, fmt), ftz(y, fmt)
                    srcs.append((a, b, _cmp(op, x, y)))
                if fmt in (F16, BF16):
                    for a, b, r in srcs:
                        t.add(f"setp.{op}.{form} %p:pred, %a:{reg}, %b:{reg}", {"a": a, "b": b}, {"p": int(r)}, CMP(2, "setp"))
                elif form == "f32":
                    # setp.op.f32 with 3-4 operands is special.py's; the BoolOp shapes come from here
                    _setp_boolops(t, op, form, reg, srcs)
                else:
                    setp_rows(t, op, form, reg, srcs, CMP(2, "setp"))


def _setp_boolops(t, op, form, reg, srcs):
    class OnlyBool:
        rows = t.rows

        def add(self, tpl, *args, **kw):
            if ".and." in tpl or ".or." in tpl or ".xor." in tpl:
                t.add(tpl, *args, **kw)
    setp_rows(OnlyBool(), op, form, reg, srcs, CMP(2, "setp"))
