#!/usr/bin/env python3
"""Writes the inputs that still crash a reader (docs/reliability.md, "Known
crashes"), into the folder given (default: the current one). They are kept
out of seeds/, whose replay is a host test, until the reader is fixed; then
the file moves to seeds/<harness>/ as its regression test. Generated rather
than stored, as each is tens of kilobytes of one repeated byte."""
import pathlib
import struct
import sys


def npy_v2(header: bytes, data: bytes = b"") -> bytes:
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header + data


def main() -> None:
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    # npy: libstdc++'s std::regex matches "'descr':\s*'([^']*)'" by recursion, one frame per
    # character; a 60,000-character dtype string overflows the stack under ASan (about 10x
    # that without). Harness npy.
    long_descr = b"{'descr': '" + b"x" * 60000 + b"', 'fortran_order': False, 'shape': (1,), }"
    (out / "npy_long_descr.npy").write_bytes(npy_v2(long_descr))
    # ptx: an initializer nested 200,000 deep (issue 42); the parser recurses per brace.
    # Harness ptx_module.
    deep = ".version 8.7\n.target sm_100a\n.address_size 64\n.global .u32 a[1] = " + "{" * 200000 + "1" + "}" * 200000 + ";\n"
    (out / "ptx_deep_initializer.ptx").write_text(deep)


if __name__ == "__main__":
    main()
