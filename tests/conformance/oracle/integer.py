"""Integer arithmetic on every type the PTX ISA gives it (.u16/.u32/.u64/.s16/.s32/.s64), the
logic/shift/bit-field forms at their other widths, prmt's modes, and integer/bit setp and selp.
PTX ISA 9.7.1 Integer Arithmetic, 9.7.7 Logic and Shift, 9.7.9.7 prmt, 9.7.5 Comparison and
Selection. Values where the ISA leaves the result unspecified are not generated: division and
remainder by zero, MIN / -1, and abs/neg of the most negative value (two's complement wraps
there on every machine we know, but the ISA does not say so)."""
from table import RNG

INT = lambda i, op: (f"9.7.1.{i} {op}", f"integer-arithmetic-instructions-{op}")
LOG = lambda i, op: (f"9.7.7.{i} {op}", f"logic-and-shift-instructions-{op}")
CMP = lambda i, op: (f"9.7.5.{i} {op}", f"comparison-and-selection-instructions-{op}")
PRMT = ("9.7.9.7 prmt", "data-movement-and-conversion-instructions-prmt")
TYPES = {"u16": (16, False), "u32": (32, False), "u64": (64, False), "s16": (16, True), "s32": (32, True), "s64": (64, True)}
REG = {1: "pred", 8: "b8", 16: "b16", 32: "b32", 64: "b64"}


def signed(x, n):
    x &= (1 << n) - 1
    return x - (1 << n) if x >> (n - 1) else x


def val(x, n, sgn):
    return signed(x, n) if sgn else x & ((1 << n) - 1)


def edges(n):
    m = (1 << n) - 1
    return [0, 1, 2, 3, m, m - 1, 1 << (n - 1), (1 << (n - 1)) - 1, (1 << (n - 1)) + 1, 1 << (n // 2), 0x5A5A5A5A5A5A5A5A & m]


def operands(n, count=12):
    return edges(n) + [RNG.getrandbits(n) >> RNG.choice((0, 0, n // 2, n - 3)) for _ in range(count)]


def pairs(n):
    vs = operands(n)
    return list(zip(vs, vs[3:] + vs[:3])) + list(zip(vs[::2], vs[::2]))


def emit(t):
    for name, (n, sgn) in TYPES.items():
        emit_arith(t, name, n, sgn)
    emit_wide(t)
    emit_logic(t)
    emit_bits64(t)
    emit_prmt_modes(t)
    emit_setp(t)
    emit_selp(t)


def emit_arith(t, name, n, sgn):
    r = REG[n]
    m = (1 << n) - 1
    T3 = f"%d:{r}, %a:{r}, %b:{r}"
    lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1)
    ps = pairs(n)
    cs = operands(n, 4)
    for i, (a, b) in enumerate(ps):
        x, y = val(a, n, sgn), val(b, n, sgn)
        ins = {"a": a, "b": b}
        t.add(f"add.{name} {T3}", ins, {"d": (x + y) & m}, INT(1, "add"))
        t.add(f"sub.{name} {T3}", ins, {"d": (x - y) & m}, INT(2, "sub"))
        if name == "s32":  # .sat clamps to MININT..MAXINT
            t.add(f"add.sat.s32 {T3}", ins, {"d": max(lo, min(hi, x + y)) & m}, INT(1, "add"))
            t.add(f"sub.sat.s32 {T3}", ins, {"d": max(lo, min(hi, x - y)) & m}, INT(2, "sub"))
        p = x * y  # the 2n-bit product; .lo/.hi its halves
        t.add(f"mul.lo.{name} {T3}", ins, {"d": p & m}, INT(3, "mul"))
        t.add(f"mul.hi.{name} {T3}", ins, {"d": (p >> n) & m}, INT(3, "mul"))
        c = cs[i % len(cs)]
        z = val(c, n, sgn)
        ins4 = {"a": a, "b": b, "c": c}
        T4 = f"{T3}, %c:{r}"
        t.add(f"mad.lo.{name} {T4}", ins4, {"d": (p + z) & m}, INT(4, "mad"))
        t.add(f"mad.hi.{name} {T4}", ins4, {"d": ((p >> n) + z) & m}, INT(4, "mad"))
        if y != 0 and not (sgn and x == lo and y == -1):  # C semantics: truncate toward zero
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            t.add(f"div.{name} {T3}", ins, {"d": q & m}, INT(8, "div"))
            t.add(f"rem.{name} {T3}", ins, {"d": (x - q * y) & m}, INT(9, "rem"))
        t.add(f"min.{name} {T3}", ins, {"d": min(x, y) & m}, INT(12, "min"))
        t.add(f"max.{name} {T3}", ins, {"d": max(x, y) & m}, INT(13, "max"))
        if sgn and x != lo:
            t.add(f"neg.{name} %d:{r}, %a:{r}", {"a": a}, {"d": -x & m}, INT(11, "neg"))
            t.add(f"abs.{name} %d:{r}, %a:{r}", {"a": a}, {"d": abs(x) & m}, INT(10, "abs"))


def emit_wide(t):
    """mul.wide / mad.wide: the full 2n-bit product of n-bit sources (mad.wide's c is 2n bits)."""
    for name in ("u16", "u32", "s16", "s32"):
        n, sgn = TYPES[name]
        r, w = REG[n], REG[2 * n]
        cs = operands(2 * n, 4)
        for i, (a, b) in enumerate(pairs(n)):
            p = val(a, n, sgn) * val(b, n, sgn)
            c = cs[i % len(cs)]
            t.add(f"mul.wide.{name} %d:{w}, %a:{r}, %b:{r}", {"a": a, "b": b}, {"d": p}, INT(3, "mul"))
            t.add(f"mad.wide.{name} %d:{w}, %a:{r}, %b:{r}, %c:{w}", {"a": a, "b": b, "c": c},
                  {"d": p + val(c, 2 * n, sgn)}, INT(4, "mad"))


def emit_logic(t):
    """and/or/xor/not/cnot at 16/64 bits and on predicates; shl/shr at every width (the amount is
    a .u32; amounts above the width clamp to it: zero, or the sign fill for shr.sN)."""
    for n in (16, 64):
        r, m = REG[n], (1 << n) - 1
        for a, b in pairs(n):
            ins = {"a": a, "b": b}
            t.add(f"and.b{n} %d:{r}, %a:{r}, %b:{r}", ins, {"d": a & b}, LOG(1, "and"))
            t.add(f"or.b{n} %d:{r}, %a:{r}, %b:{r}", ins, {"d": a | b}, LOG(2, "or"))
            t.add(f"xor.b{n} %d:{r}, %a:{r}, %b:{r}", ins, {"d": a ^ b}, LOG(3, "xor"))
            t.add(f"not.b{n} %d:{r}, %a:{r}", {"a": a}, {"d": ~a & m}, LOG(4, "not"))
            t.add(f"cnot.b{n} %d:{r}, %a:{r}", {"a": a}, {"d": int(a == 0)}, LOG(5, "cnot"))
    for a in (0, 1):
        for b in (0, 1):
            ins = {"a": a, "b": b}
            t.add("and.pred %d:pred, %a:pred, %b:pred", ins, {"d": a & b}, LOG(1, "and"))
            t.add("or.pred %d:pred, %a:pred, %b:pred", ins, {"d": a | b}, LOG(2, "or"))
            t.add("xor.pred %d:pred, %a:pred, %b:pred", ins, {"d": a ^ b}, LOG(3, "xor"))
        t.add("not.pred %d:pred, %a:pred", {"a": a}, {"d": 1 - a}, LOG(4, "not"))
    for n in (16, 32, 64):
        r, m = REG[n], (1 << n) - 1
        for a in operands(n, 6):
            for s in (0, 1, n // 2 - 1, n - 1, n, n + 1, 255, 0xFFFFFFFF):
                ins = {"a": a, "s": s}
                k = min(s, n)
                if n != 32:
                    t.add(f"shl.b{n} %d:{r}, %a:{r}, %s:b32", ins, {"d": (a << k) & m}, LOG(8, "shl"))
                    t.add(f"shr.u{n} %d:{r}, %a:{r}, %s:b32", ins, {"d": a >> k}, LOG(9, "shr"))
                    t.add(f"shr.s{n} %d:{r}, %a:{r}, %s:b32", ins, {"d": (signed(a, n) >> k) & m}, LOG(9, "shr"))
                t.add(f"shr.b{n} %d:{r}, %a:{r}, %s:b32", ins, {"d": a >> k}, LOG(9, "shr"))


def bfind(a, n, sgn, shiftamt):
    """The position of the most significant non-sign bit (0xffffffff when none); .shiftamt: the
    left shift that brings it to the top (PTX ISA 9.7.1.16)."""
    x = a ^ ((1 << n) - 1) if sgn and a >> (n - 1) else a
    if x == 0:
        return 0xFFFFFFFF
    pos = x.bit_length() - 1
    return n - 1 - pos if shiftamt else pos


def bfe(a, pos, ln, n, sgn):
    """PTX ISA 9.7.1.19: bits pos..pos+len-1 of a (pos, len = the low 8 bits of b, c); bits past
    the field, or past the msb, take sbit (a[min(pos+len-1, msb)] when signed, else 0)."""
    pos, ln, msb = pos & 0xFF, ln & 0xFF, n - 1
    if ln == 0:
        return 0
    sbit = (a >> min(pos + ln - 1, msb)) & 1 if sgn else 0
    d = 0
    for i in range(n):
        bit = (a >> (pos + i)) & 1 if i < ln and pos + i <= msb else sbit
        d |= bit << i
    return d


def emit_bits64(t):
    """popc/clz/brev/bfind/bfe/bfi at 64 bits, and the bfind forms the 32-bit set lacks."""
    m = (1 << 64) - 1
    for a in operands(64, 10):
        t.add("popc.b64 %d:b32, %a:b64", {"a": a}, {"d": bin(a).count("1")}, INT(14, "popc"))
        t.add("clz.b64 %d:b32, %a:b64", {"a": a}, {"d": 64 - a.bit_length()}, INT(15, "clz"))
        t.add("brev.b64 %d:b64, %a:b64", {"a": a}, {"d": int(f"{a:064b}"[::-1], 2)}, INT(18, "brev"))
    for n in (32, 64):
        for a in operands(n, 10):
            for sgn in (False, True):
                for sa in (False, True):
                    if n == 32 and not (sgn and sa):
                        continue  # bits.py has these
                    op = f"bfind{'.shiftamt' if sa else ''}.{'s' if sgn else 'u'}{n}"
                    t.add(f"{op} %d:b32, %a:{REG[n]}", {"a": a}, {"d": bfind(a, n, sgn, sa)}, INT(16, "bfind"))
    for a, b in pairs(64):
        for pos, ln in ((b & 0xFF, (b >> 8) & 0xFF), (b & 63, (b >> 8) & 31), (0, 64), (60, 8), (64, 3), (3, 0)):
            io = {"a": a, "p": pos, "l": ln}
            t.add("bfe.u64 %d:b64, %a:b64, %p:b32, %l:b32", io, {"d": bfe(a, pos, ln, 64, False)}, INT(19, "bfe"))
            t.add("bfe.s64 %d:b64, %a:b64, %p:b32, %l:b32", io, {"d": bfe(a, pos, ln, 64, True)}, INT(19, "bfe"))
            p, l = pos & 0xFF, ln & 0xFF
            mask = 0 if l == 0 or p > 63 else ((1 << min(l, 64 - p)) - 1) << p
            t.add("bfi.b64 %d:b64, %f:b64, %b:b64, %p:b32, %l:b32", {"f": a, "b": b, "p": pos, "l": ln},
                  {"d": (b & ~mask & m) | ((a << p) & mask)}, INT(20, "bfi"))


# prmt's modes (PTX ISA 9.7.9.7): for selector c[1:0], the source byte index of d.b0..d.b3
# within {b, a} (a = bytes 0-3, b = bytes 4-7).
PRMT_MODES = {"f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
              "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
              "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
              "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
              "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
              "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]]}


def emit_prmt_modes(t):
    for a, b in pairs(32):
        src = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
        for mode, table in PRMT_MODES.items():
            for sel in (0, 1, 2, 3, 0xFFFFFFFC | (b & 3)):  # only c[1:0] matters
                d = sum(src[k] << (8 * i) for i, k in enumerate(table[sel & 3]))
                t.add(f"prmt.b32.{mode} %d:b32, %a:b32, %b:b32, %c:b32", {"a": a, "b": b, "c": sel}, {"d": d}, PRMT)


CMPS = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
        "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y, "lo": lambda x, y: x < y, "ls": lambda x, y: x <= y,
        "hi": lambda x, y: x > y, "hs": lambda x, y: x >= y}
BOOL = {"and": lambda x, y: x and y, "or": lambda x, y: x or y, "xor": lambda x, y: x != y}


def setp_rows(t, op, ty, reg, srcs, isa):
    """setp.op.ty in its four shapes: p; p|q; p with .and/.or/.xor c; p|q with one (PTX ISA 9.7.5.2:
    p = (a cmp b) BoolOp c, q = !(a cmp b) BoolOp c). srcs: (a bits, b bits, result)."""
    T = f"%a:{reg}, %b:{reg}"
    for k, (a, b, r) in enumerate(srcs):
        ins = {"a": a, "b": b}
        t.add(f"setp.{op}.{ty} %p:pred, {T}", ins, {"p": int(r)}, isa)
        t.add(f"setp.{op}.{ty} %p:pred|%q:pred, {T}", ins, {"p": int(r), "q": int(not r)}, isa)
        for bop, f in BOOL.items():
            for c in ((0, 1) if k % 3 == 0 else (k & 1,)):
                i3 = dict(ins, c=c)
                t.add(f"setp.{op}.{bop}.{ty} %p:pred, {T}, %c:pred", i3, {"p": int(f(r, c))}, isa)
                t.add(f"setp.{op}.{bop}.{ty} %p:pred|%q:pred, {T}, %c:pred", i3,
                      {"p": int(f(r, c)), "q": int(f(not r, c))}, isa)


def emit_setp(t):
    for n in (16, 32, 64):
        vs = edges(n)[:8] + [RNG.getrandbits(n) for _ in range(3)]
        ps = list(zip(vs, vs[1:] + vs[:1])) + [(v, v) for v in vs[:3]]
        for kind, ops in (("b", ("eq", "ne")), ("s", ("eq", "ne", "lt", "le", "gt", "ge")),
                          ("u", ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"))):
            for op in ops:
                srcs = [(a, b, CMPS[op](val(a, n, kind == "s"), val(b, n, kind == "s"))) for a, b in ps]
                setp_rows(t, op, f"{kind}{n}", REG[n], srcs, CMP(2, "setp"))


def emit_selp(t):
    """selp.type d, a, b, c: d = c ? a : b, any bits (f32/f64 NaNs included)."""
    for ty in ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"):
        n = int(ty[1:])
        if ty == "b32":
            continue  # special.py has it
        for a, b in pairs(n)[:8]:
            for c in (0, 1):
                t.add(f"selp.{ty} %d:{REG[n]}, %a:{REG[n]}, %b:{REG[n]}, %c:pred", {"a": a, "b": b, "c": c},
                      {"d": a if c else b}, CMP(3, "selp"))
