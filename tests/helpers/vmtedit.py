#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Damage a .vmt file the way a hostile or broken writer would, with sound checksums, for
the end-to-end tests of the reader's checks. The layout is man/vmtrace-file.5's (file
header, 32-byte block headers, CHNK headers of 88 bytes, key/value payloads); no vmtrace
code is used, so the checksums (CRC32C) are computed here.

Usage: vmtedit.py IN OUT EDIT...  where EDIT is one of
  chunk:N:FIELD=VALUE   set a field of the Nth CHNK block (0-based, file order): cpu,
                        pages, page_size, first_ts, last_ts, missed_count
  swap:N:M              exchange the Nth and Mth CHNK blocks (their places in the file)
  dup:N                 insert a copy of the Nth CHNK block right after it
  end:KEY=VALUE         set a key of the END block (added when absent)
  end:-KEY              remove a key of the END block
  meta:KEY=VALUE, meta:-KEY
                        the same for META and its copy (MCPY)
  raw:N                 store the Nth CHNK block's pages raw (flags bit 0 clear)
  raw:N:short           the same, its payload a page short of the raw size its header says
  pagets:N:P=VALUE      set the time stamp of page P of the Nth CHNK block (stored raw)
  corrupt:N|all         change a byte of the Nth (or every) CHNK block's payload, its
                        checksum left as it was
  append:FILE           append FILE's bytes after the result
  mcpy                  insert a copy of META (an MCPY block) right after it, as recorders
                        since the copy write it
  meta2:N               insert a second META block before the Nth CHNK block
  metadamage            change a byte of META's payload, its checksum left as it was
or: vmtedit.py IN list   one line per CHNK block: "N offset cpu first_ts last_ts" (its
    header's)
or: vmtedit.py IN records   one line per CHNK block: "N cpu pair_events first last", the
    records of the pair (META's format.begin and format.end ids), and the times of the
    first and last record of any event, its pages
    decoded here (zstd(1) decompresses; 64-bit pages: 8-byte time stamp and commit word,
    records as man/vmtrace-file.5 describes them)
"""
import struct
import subprocess
import sys

CHUNK_FIELDS = {"cpu": (32, "<I"), "pages": (36, "<I"), "page_size": (40, "<I"),
                "first_ts": (56, "<Q"), "last_ts": (64, "<Q"), "missed_count": (80, "<Q")}


def _table():
    out = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        out.append(c)
    return out


TABLE = _table()


def crc32c(data):
    c = 0xFFFFFFFF
    for x in data:
        c = TABLE[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def blocks(data):
    """[kind, header bytes, payload bytes] for each block, and the file header."""
    off = struct.unpack_from("<I", data, 12)[0]
    out = []
    while off + 32 <= len(data):
        kind, hsize, psize = struct.unpack_from("<4sIQ", data, off)
        out.append([kind, bytearray(data[off:off + hsize]),
                    bytes(data[off + hsize:off + hsize + psize])])
        off += hsize + psize
    return bytes(data[:struct.unpack_from("<I", data, 12)[0]]), out


def seal(blk):
    hdr, payload = blk[1], blk[2]
    struct.pack_into("<Q", hdr, 8, len(payload))
    struct.pack_into("<I", hdr, 20, crc32c(payload))
    struct.pack_into("<I", hdr, 16, 0)
    struct.pack_into("<I", hdr, 16, crc32c(bytes(hdr)))


def kv_items(payload):
    out, off = [], 0
    while off + 8 <= len(payload):
        klen, vlen = struct.unpack_from("<II", payload, off)
        off += 8
        out.append((payload[off:off + klen], payload[off + klen:off + klen + vlen]))
        off += klen + vlen
    return out


def kv_bytes(items):
    return b"".join(struct.pack("<II", len(k), len(v)) + k + v for k, v in items)


def page_records(page, ids):
    """(records of the ids, first and last record's time) of one sub-buffer."""
    ts = struct.unpack_from("<Q", page, 0)[0]
    commit = struct.unpack_from("<Q", page, 8)[0] & ((1 << 27) - 1)
    data, off, n, first, last = page[16:16 + commit], 0, 0, None, None
    while off + 4 <= len(data):
        word = struct.unpack_from("<I", data, off)[0]
        kind, delta = word & 31, word >> 5
        if 1 <= kind <= 28:
            size = 4 + kind * 4
        elif kind == 0:
            size = 8 + ((struct.unpack_from("<I", data, off + 4)[0] - 4 + 3) & ~3)
        elif kind == 29:
            if delta == 0:
                break
            size = 4 + struct.unpack_from("<I", data, off + 4)[0]
        elif kind == 30:
            ts += struct.unpack_from("<I", data, off + 4)[0] << 27
            size = 8
        else:
            ts = (struct.unpack_from("<I", data, off + 4)[0] << 27 | delta) - delta
            size = 8
        ts += delta
        if kind <= 28:
            n += struct.unpack_from("<H", data, off + (4 if kind else 8))[0] in ids
            first = ts if first is None else first
            last = ts
        off += size
    return n, first, last


def chunk_records(blk, ids):
    cpu, pages, size, flags = struct.unpack_from("<IIII", blk[1], 32)
    raw = blk[2]
    if flags & 1:
        raw = subprocess.run(["zstd", "-dc"], input=raw, stdout=subprocess.PIPE,
                             check=True).stdout
    n, first, last = 0, None, None
    for p in range(pages):
        k, f, l = page_records(raw[p * size:(p + 1) * size], ids)
        n += k
        if f is not None:
            first = f if first is None else min(first, f)
            last = l if last is None else max(last, l)
    return cpu, n, first, last


def main(argv):
    head, blks = blocks(open(argv[1], "rb").read())
    chunks = lambda: [b for b in blks if b[0] == b"CHNK"]
    if argv[2] == "list":
        off = len(head)
        for blk in blks:
            if blk[0] == b"CHNK":
                cpu = struct.unpack_from("<I", blk[1], 32)[0]
                first, last = struct.unpack_from("<QQ", blk[1], 56)
                print(chunks().index(blk), off, cpu, first, last)
            off += len(blk[1]) + len(blk[2])
        return
    if argv[2] == "records":
        meta = dict(kv_items([b for b in blks if b[0] == b"META"][0][2]))
        ids = {int(line.split(b":")[1]) for key in (b"format.begin", b"format.end")
               for line in meta[key].splitlines() if line.startswith(b"ID:")}
        for i, b in enumerate(chunks()):
            print(i, *chunk_records(b, ids))
        return
    tail = b""
    for edit in argv[3:]:
        what, _, rest = edit.partition(":")
        if what == "chunk":
            n, _, assign = rest.partition(":")
            field, _, value = assign.partition("=")
            off, fmt = CHUNK_FIELDS[field]
            blk = chunks()[int(n)]
            struct.pack_into(fmt, blk[1], off, int(value, 0))
            seal(blk)
        elif what == "swap":
            n, m = (int(x) for x in rest.split(":"))
            a, b = chunks()[n], chunks()[m]
            ia, ib = blks.index(a), blks.index(b)
            blks[ia], blks[ib] = b, a
        elif what == "dup":
            blk = chunks()[int(rest)]
            blks.insert(blks.index(blk) + 1, [blk[0], bytearray(blk[1]), blk[2]])
        elif what in ("end", "meta"):
            kinds = (b"END\0",) if what == "end" else (b"META", b"MCPY")
            for blk in [b for b in blks if b[0] in kinds]:
                items = kv_items(blk[2])
                if rest.startswith("-"):
                    items = [(k, v) for k, v in items if k != rest[1:].encode()]
                else:
                    key, _, value = rest.partition("=")
                    items = [(k, v) for k, v in items if k != key.encode()]
                    items.append((key.encode(), value.encode()))
                blk[2] = kv_bytes(items)
                seal(blk)
        elif what == "raw":
            n, _, how = rest.partition(":")
            blk = chunks()[int(n)]
            size, flags = struct.unpack_from("<II", blk[1], 40)
            if flags & 1:
                blk[2] = subprocess.run(["zstd", "-dc"], input=blk[2], stdout=subprocess.PIPE,
                                        check=True).stdout
            if how == "short":
                blk[2] = blk[2][:-size]
            struct.pack_into("<I", blk[1], 44, flags & ~1)
            seal(blk)
        elif what == "pagets":
            n, _, assign = rest.partition(":")
            page, _, value = assign.partition("=")
            blk = chunks()[int(n)]
            size, flags = struct.unpack_from("<II", blk[1], 40)
            raw = blk[2]
            if flags & 1:
                raw = subprocess.run(["zstd", "-dc"], input=raw, stdout=subprocess.PIPE,
                                     check=True).stdout
            raw = bytearray(raw)
            struct.pack_into("<Q", raw, int(page) * size, int(value, 0))
            blk[2] = bytes(raw)
            struct.pack_into("<I", blk[1], 44, flags & ~1)
            seal(blk)
        elif what == "corrupt":
            for blk in chunks() if rest == "all" else [chunks()[int(rest)]]:
                payload = bytearray(blk[2])
                payload[len(payload) // 2] ^= 0xFF
                blk[2] = bytes(payload)
        elif what == "append":
            tail += open(rest, "rb").read()
        elif what == "mcpy":
            meta = [b for b in blks if b[0] == b"META"][0]
            copy = [b"MCPY", bytearray(meta[1]), meta[2]]
            struct.pack_into("<4s", copy[1], 0, b"MCPY")
            seal(copy)
            blks.insert(blks.index(meta) + 1, copy)
        elif what == "meta2":
            meta = [b for b in blks if b[0] == b"META"][0]
            blks.insert(blks.index(chunks()[int(rest)]), [b"META", bytearray(meta[1]), meta[2]])
        elif what == "metadamage":
            meta = [b for b in blks if b[0] == b"META"][0]
            payload = bytearray(meta[2])
            payload[100] ^= 0xFF
            meta[2] = bytes(payload)
        else:
            sys.exit("vmtedit.py: unknown edit " + edit)
    with open(argv[2], "wb") as f:
        f.write(head + b"".join(bytes(b[1]) + b[2] for b in blks) + tail)


main(sys.argv)
