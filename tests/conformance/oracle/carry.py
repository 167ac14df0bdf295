"""The extended-precision (carry chain) forms, every type: add.cc, addc{.cc}, sub.cc, subc{.cc},
mad{.lo,.hi}.cc, madc{.lo,.hi}{.cc} over u32/s32/u64/s64. PTX ISA 9.7.2.1-9.7.2.6.

Each template judges one form (README: a template's form is its instruction marked "* ", else its
first). CC.CF is set before the form by `add.cc.T %t, %ci, %m` with m = all ones (CF = ci), and read
after a `.cc` form by `addc.T %o, %z, %z` with z = 0 (o = CF).

Semantics, per bit pattern (the signed types differ only in mad/madc's product), as silicon computes
them: a subtraction is an addition of the complement with carry, and CC.CF is always that addition's
carry-out (H100 run 2026-12-06, tests/device/ptx_conformance_sm90, docs/ptx.md 'Conformance'):
  add.cc   d = a + b,              carry-out -> CF
  addc     d = a + b + CF,         {.cc: carry-out -> CF}
  sub.cc   d = a + ~b + 1,         carry-out -> CF   (CF = 1 when there is NO borrow: a >= b unsigned)
  subc     d = a + ~b + CF,        {.cc: carry-out -> CF}
  mad.cc   d = (a*b).{lo,hi} + c,  carry-out -> CF
  madc     d = (a*b).{lo,hi} + c + CF, {.cc: carry-out -> CF}
madc without .lo/.hi is taken as .lo (the interpreter takes the spelling; the ISA writes the
modifier as optional without naming a default, so those vectors say so in their isa field).

SILICON OVER THE ISA (CF after a subtraction): the ISA text writes subc as d = a - (b + CC.CF) with
the "borrow-out written to CC.CF" (sub.cc likewise: CF = 1 when a < b). The H100 disagrees in every
mixed chain: `sub.cc.u32 x, 0, 0xFFFFFFFF; addc.u32 y, 0, 0` gives y = 0 (the ISA's borrow: 1),
`sub.cc.u32 x, 5, 3; addc.u32 y, 0, 0` gives 1, and `subc` after an `add.cc` that set CF = 1 gives
a - b (CF = 0: a - b - 1). Pure subtraction chains (sub.cc -> subc) give the same values under both
readings. The vectors where the readings differ (a CF from a subtraction read by an add, or a CF from
an add read by a subtraction) carry CF-SILICON in their isa field (grep the table for it).
"""
from table import RNG

TYPES = {"u32": 32, "s32": 32, "u64": 64, "s64": 64}
SILICON = " [CF-SILICON: CF after a subtraction is the carry of a + ~b + CF (no borrow = 1), not the ISA's borrow; H100 run 2026-12-06]"


def EXT(i, op, silicon=False, note=""):
    return (f"9.7.2.{i} {op}{note}{SILICON if silicon else ''}",
            f"extended-precision-arithmetic-instructions-{op.replace('.', '-')}")


def _values(n):
    m = (1 << n) - 1
    edge = [0, 1, 2, m, m - 1, 1 << (n - 1), (1 << (n - 1)) - 1, 0xFFFF, 0x10000, 0x80808080]
    return [e & m for e in edge] + [RNG.getrandbits(n) for _ in range(12)]


def _signed(x, n):
    return x - (1 << n) if x >> (n - 1) else x


def emit(t):
    for ty, n in TYPES.items():
        m = (1 << n) - 1
        r = f"b{n}"
        vs = _values(n)
        trip = [(a, b, vs[(i * 7 + 3) % len(vs)]) for i, (a, b) in enumerate(zip(vs, vs[5:] + vs[:5]))]
        trip += [(a, a, vs[(i * 3) % len(vs)]) for i, a in enumerate(vs[:8])]
        cin = f"add.cc.{ty} %t:{r}, %ci:{r}, %m:{r}"  # CF := ci
        cout = f"addc.{ty} %o:{r}, %z:{r}, %z:{r}"   # o := CF
        for k, (a, b, c) in enumerate(trip):
            ci = k & 1
            tb = {"t": (ci + m) & m}
            # add.cc (9.7.2.1)
            s = a + b
            t.add(f"add.cc.{ty} %d:{r}, %a:{r}, %b:{r} ; {cout}", {"a": a, "b": b, "z": 0},
                  {"d": s & m, "o": s >> n}, EXT(1, "add.cc"))
            # addc{.cc} (9.7.2.2)
            s = a + b + ci
            ins = {"a": a, "b": b, "ci": ci, "m": m}
            t.add(f"{cin} ; * addc.{ty} %d:{r}, %a:{r}, %b:{r}", ins, dict(tb, d=s & m), EXT(2, "addc"))
            t.add(f"{cin} ; * addc.cc.{ty} %d:{r}, %a:{r}, %b:{r} ; {cout}", dict(ins, z=0),
                  dict(tb, d=s & m, o=s >> n), EXT(2, "addc"))
            # sub.cc (9.7.2.3): d = a + ~b + 1, CF = its carry-out (1 iff a >= b unsigned; silicon, not the
            # ISA's borrow: H100 run 2026-12-06, tests/device/ptx_conformance_sm90, docs/ptx.md 'Conformance'),
            # read by addc; and the ISA's own pairing sub.cc -> subc (a 2n-bit subtraction: right under either reading)
            t.add(f"sub.cc.{ty} %d:{r}, %a:{r}, %b:{r}", {"a": a, "b": b}, {"d": (a - b) & m}, EXT(3, "sub.cc"))
            s = a + (~b & m) + 1
            t.add(f"sub.cc.{ty} %d:{r}, %a:{r}, %b:{r} ; {cout}", {"a": a, "b": b, "z": 0},
                  {"d": s & m, "o": s >> n}, EXT(3, "sub.cc", True))
            wide = ((c << n | a) - (b << n | vs[k % len(vs)])) & ((1 << 2 * n) - 1)
            t.add(f"sub.cc.{ty} %d:{r}, %a:{r}, %e:{r} ; subc.{ty} %h:{r}, %c:{r}, %b:{r}",
                  {"a": a, "e": vs[k % len(vs)], "c": c, "b": b}, {"d": wide & m, "h": wide >> n}, EXT(3, "sub.cc"))
            # subc{.cc} (9.7.2.4): CF = ci set by add.cc, read by a subtraction: d = a + ~b + CF, CF out =
            # its carry (silicon; the ISA's d = a - (b + CF) with a borrow-out differs: H100 run 2026-12-06,
            # tests/device/ptx_conformance_sm90, docs/ptx.md 'Conformance')
            s = a + (~b & m) + ci
            t.add(f"{cin} ; * subc.{ty} %d:{r}, %a:{r}, %b:{r}", ins, dict(tb, d=s & m), EXT(4, "subc", True))
            t.add(f"{cin} ; * subc.cc.{ty} %d:{r}, %a:{r}, %b:{r} ; {cout}", dict(ins, z=0),
                  dict(tb, d=s & m, o=s >> n), EXT(4, "subc", True))
            dd = (a - (b + ci)) & m
            # subc{.cc} with CF from sub.cc (a pure subtraction chain, the same under the ISA's reading): sub.cc of
            # (0 - ci) leaves CF = 1 - ci (no borrow iff ci = 0), so subc gives a - b - ci and subc.cc's CF
            # is 1 - (a < b + ci), read by subc 0, 0 as -(a < b + ci)
            sins = {"a": a, "b": b, "ci": ci, "z": 0}
            t.add(f"sub.cc.{ty} %t:{r}, %z:{r}, %ci:{r} ; * subc.{ty} %d:{r}, %a:{r}, %b:{r}", sins,
                  {"t": (-ci) & m, "d": dd}, EXT(4, "subc"))
            t.add(f"sub.cc.{ty} %t:{r}, %z:{r}, %ci:{r} ; * subc.cc.{ty} %d:{r}, %a:{r}, %b:{r} ; "
                  f"subc.{ty} %o:{r}, %z:{r}, %z:{r}", sins,
                  {"t": (-ci) & m, "d": dd, "o": (-int(a < b + ci)) & m}, EXT(4, "subc"))
            # mad{.lo,.hi}.cc (9.7.2.5), madc{.lo,.hi}{.cc} (9.7.2.6)
            p = _signed(a, n) * _signed(b, n) if ty[0] == "s" else a * b
            p &= (1 << 2 * n) - 1
            for part in ("lo", "hi", ""):
                half = p >> n if part == "hi" else p & m
                note = " (no .lo/.hi: taken as .lo)" if not part else ""
                dot = f".{part}" if part else ""
                if part:
                    s = half + c
                    t.add(f"mad{dot}.cc.{ty} %d:{r}, %a:{r}, %b:{r}, %c:{r} ; {cout}", {"a": a, "b": b, "c": c, "z": 0},
                          {"d": s & m, "o": s >> n}, EXT(5, "mad.cc"))
                s = half + c + ci
                ins4 = {"a": a, "b": b, "c": c, "ci": ci, "m": m}
                t.add(f"{cin} ; * madc{dot}.{ty} %d:{r}, %a:{r}, %b:{r}, %c:{r}", ins4, dict(tb, d=s & m),
                      EXT(6, "madc", note=note))
                t.add(f"{cin} ; * madc{dot}.cc.{ty} %d:{r}, %a:{r}, %b:{r}, %c:{r} ; {cout}", dict(ins4, z=0),
                      dict(tb, d=s & m, o=s >> n), EXT(6, "madc", note=note))
