#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The META and END keys of a .vmt file, read from its blocks as man/vmtrace-file.5 lays
them out (file header, 32-byte block headers, key/value payloads), with no vmtrace code:
an independent reader for the end-to-end tests.

Usage: vmtmeta.py FILE: one JSON object {"meta": {...}, "end": {...} or null}.
"""
import json
import struct
import sys


def keys(payload):
    out, off = {}, 0
    while off + 8 <= len(payload):
        klen, vlen = struct.unpack_from("<II", payload, off)
        off += 8
        key = payload[off:off + klen].decode()
        out[key] = payload[off + klen:off + klen + vlen].decode(errors="replace")
        off += klen + vlen
    return out


def main(path):
    data = open(path, "rb").read()
    if data[:8] != b"VMTRACE\0":
        sys.exit("%s: not a .vmt file" % path)
    off = struct.unpack_from("<I", data, 12)[0]
    meta, end = None, None
    while off + 32 <= len(data):
        kind, hsize, psize = struct.unpack_from("<4sIQ", data, off)
        payload = data[off + hsize:off + hsize + psize]
        if kind == b"META" and meta is None:
            meta = keys(payload)
        elif kind == b"END\0":
            end = keys(payload)
        off += hsize + psize
    json.dump({"meta": meta, "end": end}, sys.stdout)


main(sys.argv[1])
