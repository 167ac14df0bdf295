"""Integer, logic and bit instructions, and the forms real kernels use that an interpreter may
still lack: dp4a/dp2a, .u16x2/.s16x2 SIMD (the carry chain is carry.py's),
sad, bmsk, lop3 (with its predicate output), prmt. PTX ISA 9.7.1 (integer), 9.7.2 (extended
precision), 9.7.7 (logic and shift), 9.7.9 (prmt)."""
from table import RNG

M32 = (1 << 32) - 1


def isa(sec, anchor):
    return (sec, anchor)


INT = lambda i, op: isa(f"9.7.1.{i} {op}", f"integer-arithmetic-instructions-{op}")
EXT = lambda i, op: isa(f"9.7.2.{i} {op}", f"extended-precision-arithmetic-instructions-{op.replace('.', '-')}")
LOG = lambda i, op: isa(f"9.7.7.{i} {op}", f"logic-and-shift-instructions-{op}")


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def values(n=24):
    edge = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, 0x10000, 0x8000, 0x7FFF, 0x80808080, 0x7F7F7F7F]
    return edge + [RNG.getrandbits(32) for _ in range(n)]


def emit(t):
    vs = values()
    pairs = list(zip(vs, vs[5:] + vs[:5])) + list(zip(vs, vs))
    triples = [(a, b, vs[(i * 7) % len(vs)]) for i, (a, b) in enumerate(pairs)]
    shifts = [0, 1, 7, 16, 31, 32, 33, 63, 64, 255, 0xFFFFFFFF]
    for a, b, c in triples:
        emit_basic(t, a, b, c)
        for s in shifts:
            emit_shift(t, a, b, s)
    for a, b, c in triples:
        emit_extra(t, a, b, c)


def emit_basic(t, a, b, c):
    T = "%d:b32, %a:b32, %b:b32"
    t.add(f"and.b32 {T}", {"a": a, "b": b}, {"d": a & b}, LOG(1, "and"))
    t.add(f"or.b32 {T}", {"a": a, "b": b}, {"d": a | b}, LOG(2, "or"))
    t.add(f"xor.b32 {T}", {"a": a, "b": b}, {"d": a ^ b}, LOG(3, "xor"))
    t.add("not.b32 %d:b32, %a:b32", {"a": a}, {"d": ~a & M32}, LOG(4, "not"))
    t.add("cnot.b32 %d:b32, %a:b32", {"a": a}, {"d": int(a == 0)}, LOG(5, "cnot"))
    t.add("popc.b32 %d:b32, %a:b32", {"a": a}, {"d": bin(a).count("1")}, INT(14, "popc"))
    t.add("clz.b32 %d:b32, %a:b32", {"a": a}, {"d": 32 - a.bit_length()}, INT(15, "clz"))
    t.add("brev.b32 %d:b32, %a:b32", {"a": a}, {"d": int(f"{a:032b}"[::-1], 2)}, INT(18, "brev"))
    # bfind: the bit position of the most significant non-sign bit; 0xffffffff when none
    ms = (a.bit_length() - 1) if a else M32
    t.add("bfind.u32 %d:b32, %a:b32", {"a": a}, {"d": ms}, INT(16, "bfind"))
    t.add("bfind.shiftamt.u32 %d:b32, %a:b32", {"a": a}, {"d": 31 - ms if a else M32}, INT(16, "bfind"))
    sa = a ^ M32 if a >> 31 else a
    t.add("bfind.s32 %d:b32, %a:b32", {"a": a}, {"d": sa.bit_length() - 1 if sa else M32}, INT(16, "bfind"))
    lut = c & 0xFF  # lop3: bit (a_i<<2 | b_i<<1 | c_i) of the LUT, with F0/CC/AA the inputs a/b/c
    d = 0
    for i in range(32):
        idx = ((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1)
        d |= (lut >> idx & 1) << i
    t.add(f"lop3.b32 %d:b32, %a:b32, %b:b32, %c:b32, {lut}", {"a": a, "b": b, "c": c}, {"d": d}, LOG(6, "lop3"))
    for bop in ("or", "and"):  # lop3.BoolOp d|p, a, b, c, lut, q: p = (d != 0) BoolOp q
        q = (a ^ b) & 1
        p = (d != 0) or bool(q) if bop == "or" else (d != 0) and bool(q)
        t.add(f"lop3.{bop}.b32 %d:b32|%p:pred, %a:b32, %b:b32, %c:b32, {lut}, %q:pred",
              {"a": a, "b": b, "c": c, "q": q}, {"d": d, "p": int(p)}, LOG(6, "lop3"))
    pos, ln = b & 0xFF, c & 0xFF
    emit_bitfield(t, a, b, pos, ln)
    emit_prmt(t, a, b, c)


def emit_bitfield(t, a, b, pos, ln):
    """bfe/bfi/bmsk with position and length taken from the low 8 bits (PTX ISA: "clamped to 0..255")."""
    field = 0 if ln == 0 or pos >= 32 else (a >> pos) & ((1 << min(ln, 32 - pos)) - 1)
    t.add("bfe.u32 %d:b32, %a:b32, %p:b32, %l:b32", {"a": a, "p": pos, "l": ln}, {"d": field}, INT(19, "bfe"))
    top = min(pos + ln - 1, 31)
    sbit = (a >> top & 1) if ln and pos < 32 else (a >> 31 & 1 if ln else 0)
    sfield = field
    if ln:
        width = min(ln, 32 - pos) if pos < 32 else 0
        sfield = field | ((M32 << width) & M32 if sbit else 0)
    else:
        sfield = 0
    t.add("bfe.s32 %d:b32, %a:b32, %p:b32, %l:b32", {"a": a, "p": pos, "l": ln}, {"d": sfield}, INT(19, "bfe"))
    mask = 0 if ln == 0 or pos >= 32 else ((1 << min(ln, 32 - pos)) - 1) << pos
    t.add("bfi.b32 %d:b32, %f:b32, %b:b32, %p:b32, %l:b32", {"f": a, "b": b, "p": pos, "l": ln},
          {"d": (b & ~mask & M32) | ((a << pos) & mask)}, INT(20, "bfi"))
    for mode in ("clamp", "wrap"):  # bmsk: a mask of b ones starting at bit a
        p, w = (min(pos, 32), min(ln, 32)) if mode == "clamp" else (pos & 31, ln & 31)
        m = 0 if p >= 32 else ((1 << min(w, 32 - p)) - 1) << p
        t.add(f"bmsk.{mode}.b32 %d:b32, %a:b32, %b:b32", {"a": pos, "b": ln}, {"d": m}, INT(22, "bmsk"))


def emit_prmt(t, a, b, c):
    """prmt.b32: bytes of {b, a} picked by the selector's four nibbles; bit 3 of a nibble
    replicates the picked byte's sign (PTX ISA 9.7.9.7 prmt, default mode)."""
    src = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    d = 0
    for i in range(4):
        n = (c >> (4 * i)) & 0xF
        byte = src[n & 7]
        d |= ((0xFF if byte >> 7 else 0) if n & 8 else byte) << (8 * i)
    t.add("prmt.b32 %d:b32, %a:b32, %b:b32, %c:b32", {"a": a, "b": b, "c": c & 0xFFFF}, {"d": d},
          ("9.7.9.7 prmt", "data-movement-and-conversion-instructions-prmt"))


def emit_shift(t, a, b, s):
    """shl/shr: shift amounts above the width give 0 (shr.s32: the sign fill); shf funnel shifts
    (.clamp: amount min(s, 32); .wrap: s mod 32). PTX ISA 9.7.7.7-9."""
    t.add("shl.b32 %d:b32, %a:b32, %s:b32", {"a": a, "s": s}, {"d": (a << s) & M32 if s < 32 else 0}, LOG(9, "shl"))
    t.add("shr.u32 %d:b32, %a:b32, %s:b32", {"a": a, "s": s}, {"d": a >> s if s < 32 else 0}, LOG(10, "shr"))
    t.add("shr.s32 %d:b32, %a:b32, %s:b32", {"a": a, "s": s}, {"d": (s32(a) >> min(s, 31)) & M32}, LOG(10, "shr"))
    for mode in ("clamp", "wrap"):
        n = min(s, 32) if mode == "clamp" else s & 31
        x = (b << 32) | a
        t.add(f"shf.l.{mode}.b32 %d:b32, %a:b32, %b:b32, %s:b32", {"a": a, "b": b, "s": s},
              {"d": ((x << n) >> 32) & M32}, LOG(8, "shf"))
        t.add(f"shf.r.{mode}.b32 %d:b32, %a:b32, %b:b32, %s:b32", {"a": a, "b": b, "s": s},
              {"d": (x >> n) & M32}, LOG(8, "shf"))


def emit_extra(t, a, b, c):
    sb = lambda x, i: ((x >> (8 * i)) & 0xFF) - (0x100 if (x >> (8 * i)) & 0x80 else 0)
    ub = lambda x, i: (x >> (8 * i)) & 0xFF
    sh = lambda x, i: ((x >> (16 * i)) & 0xFFFF) - (0x10000 if (x >> (16 * i)) & 0x8000 else 0)
    uh = lambda x, i: (x >> (16 * i)) & 0xFFFF
    for at, aget in (("u32", ub), ("s32", sb)):
        for bt, bget in (("u32", ub), ("s32", sb)):
            d = c + sum(aget(a, i) * bget(b, i) for i in range(4))
            t.add(f"dp4a.{at}.{bt} %d:b32, %a:b32, %b:b32, %c:b32", {"a": a, "b": b, "c": c}, {"d": d & M32}, INT(23, "dp4a"))
            hget = uh if at == "u32" else sh
            for part, base in (("lo", 0), ("hi", 2)):  # dp2a: a's two halves times two of b's bytes
                d = c + sum(hget(a, i) * bget(b, base + i) for i in range(2))
                t.add(f"dp2a.{part}.{at}.{bt} %d:b32, %a:b32, %b:b32, %c:b32", {"a": a, "b": b, "c": c}, {"d": d & M32},
                      INT(24, "dp2a"))
    for ty, get in (("u16x2", uh), ("s16x2", sh)):
        for op, f in (("add", lambda x, y: x + y), ("sub", lambda x, y: x - y), ("min", min), ("max", max)):
            d = sum((f(get(a, i), get(b, i)) & 0xFFFF) << (16 * i) for i in range(2))
            sec = {"add": 1, "sub": 2, "min": 12, "max": 13}[op]
            t.add(f"{op}.{ty} %d:b32, %a:b32, %b:b32", {"a": a, "b": b}, {"d": d}, INT(sec, op))
    t.add("sad.u32 %d:b32, %a:b32, %b:b32, %c:b32", {"a": a, "b": b, "c": c}, {"d": (c + abs(a - b)) & M32}, INT(7, "sad"))
    t.add("sad.s32 %d:b32, %a:b32, %b:b32, %c:b32", {"a": a, "b": b, "c": c},
          {"d": (c + abs(s32(a) - s32(b))) & M32}, INT(7, "sad"))
    # sad at 16 and 64 bits: d = c + |a - b| (PTX ISA 9.7.1.7), wrapping at the type's width
    for n in (16, 64):
        m = (1 << n) - 1
        x, y, z = ((a << 32 | b) & m, (b << 32 | c) & m, (c << 32 | a) & m) if n == 64 else (a & m, b & m, c & m)
        sg = lambda v: v - (1 << n) if v >> (n - 1) else v
        t.add(f"sad.u{n} %d:b{n}, %a:b{n}, %b:b{n}, %c:b{n}", {"a": x, "b": y, "c": z}, {"d": (z + abs(x - y)) & m}, INT(7, "sad"))
        t.add(f"sad.s{n} %d:b{n}, %a:b{n}, %b:b{n}, %c:b{n}", {"a": x, "b": y, "c": z},
              {"d": (z + abs(sg(x) - sg(y))) & m}, INT(7, "sad"))
    # min/max .relu (PTX ISA 9.7.1.12/13): the signed min/max, clamped to 0 if negative; per lane for s16x2
    for op, f in (("min", min), ("max", max)):
        sec = {"min": 12, "max": 13}[op]
        t.add(f"{op}.relu.s32 %d:b32, %a:b32, %b:b32", {"a": a, "b": b}, {"d": max(0, f(s32(a), s32(b)))}, INT(sec, op))
        d = sum(max(0, f(sh(a, i), sh(b, i))) << (16 * i) for i in range(2))
        t.add(f"{op}.relu.s16x2 %d:b32, %a:b32, %b:b32", {"a": a, "b": b}, {"d": d}, INT(sec, op))
