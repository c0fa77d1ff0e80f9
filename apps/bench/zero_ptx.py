#!/usr/bin/env python3
"""Zero the PTX payloads of every fatbin in the given files (SASS for sm_90 stays), so the
carried archive compresses smaller. Usage: zero_ptx.py FILE..."""
import struct, sys

MAGIC = b"\x50\xed\x55\xba"

def zero(path):
    data = bytearray(open(path, "rb").read())
    pos, zeroed = 0, 0
    while True:
        pos = data.find(MAGIC, pos)
        if pos < 0:
            break
        _, ver, hsize, fsize = struct.unpack_from("<IHHQ", data, pos)
        if ver != 1 or hsize != 16 or fsize <= 0 or pos + 16 + fsize > len(data):
            pos += 4
            continue
        e, end = pos + 16, pos + 16 + fsize
        while e + 16 <= end:
            kind, _, ehs, size = struct.unpack_from("<HHIQ", data, e)
            if ehs < 16 or e + ehs + size > end:
                break
            if kind == 1:
                data[e + ehs:e + ehs + size] = bytes(size)
                zeroed += size
            e += ehs + size
        pos = end
    open(path, "wb").write(data)
    print(f"{path}: {zeroed} PTX bytes zeroed")

for p in sys.argv[1:]:
    zero(p)
