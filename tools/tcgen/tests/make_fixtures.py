"""Input files for the invocation table (invocations.txt): .npy files right
and wrong in the ways numpy.lib.format allows a writer to get wrong, a
directory, a file that is not PTX. Run as: make_fixtures.py DIR"""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(os.path.join(out, "dir"), exist_ok=True)


def npy(name, header, data=b""):
    header = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def f32(n):
    return struct.pack("<%df" % n, *[((i * 37) % 19 - 9) / 8 for i in range(n)])


npy("m8x8.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 8), }", f32(64))
npy("qkv.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 16, 64), }", f32(1024))
npy("negative.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, -64, 64), }", f32(8192))
npy("twenty_digits.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (12345678901234567890, 1), }")
npy("int32.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (8, 8), }", bytes(256))
npy("big_endian.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (8, 8), }", bytes(256))
npy("fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (8, 8), }", f32(64))
npy("truncated.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 8), }", f32(63))
npy("no_shape.npy", "{'descr': '<f4', 'fortran_order': False, }", f32(1))
npy("three_d.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2), }", f32(8))
npy("infinite.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 8), }", struct.pack("<f", float("inf")) * 64)
with open(os.path.join(out, "empty.npy"), "wb"):
    pass
with open(os.path.join(out, "garbage.npy"), "wb") as f:
    f.write(b"hello, not numpy\n")
with open(os.path.join(out, "not.ptx"), "w") as f:
    f.write("this is not PTX\n")
# One file under three more spellings, and a user's own q/k/v: the data-loss rows.
os.symlink("m8x8.npy", os.path.join(out, "link.npy"))
os.link(os.path.join(out, "m8x8.npy"), os.path.join(out, "hard.npy"))
for d, names in (("user", ("q", "k", "v")), ("saved_once", ("a", "b"))):
    os.makedirs(os.path.join(out, d), exist_ok=True)
    src = "qkv.npy" if d == "user" else "m8x8.npy"
    for n in names:
        with open(os.path.join(out, src), "rb") as f, open(os.path.join(out, d, n + ".npy"), "wb") as g:
            g.write(f.read())
# A one-block MODEL1 cache (64 tokens, 37440 bytes, zeros), one query row of 64 heads in float32 and
# float64 (numpy's default), an index inside the cache and one past it.
npy("sd_cache.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 37440), }", bytes(37440))
npy("sd_q.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 64, 512), }", f32(64 * 512))
npy("sd_q64.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 64, 512), }",
    struct.pack("<%dd" % (64 * 512), *[((i * 37) % 19 - 9) / 8 for i in range(64 * 512)]))
npy("sd_index.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1), }", struct.pack("<i", 5))
npy("sd_past.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1), }", struct.pack("<i", 64))
npy("m8x8_f64.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (8, 8), }",
    struct.pack("<64d", *[((i * 37) % 19 - 9) / 8 for i in range(64)]))
