#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace.dat cut short (a copy stopped, a full disk) is said to be cut, where, and in what:
# every bundled trace.dat (v6 and v7, trace-cmd's and mktracedat's) cut at each boundary of
# its layout, one byte either side, and at evenly spaced offsets. The layout comes from a
# reader of its own here (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)), not from the program:
#  - a file whose headers or sections are cut before its CPUs' data can be read: exit 1,
#    one line, "truncated: the file is cut at byte N, inside its PART" (v6: the part of the
#    headers; v7: the section the cut falls in, and its offset);
#  - one cut inside the CPUs' data: exit 2, "the file is cut short inside/before a CPU's
#    data" or "inside a compression chunk", at an offset not past the cut;
#  - one cut after them (v7: the flyrecord section's padding, trace-cmd's last options and
#    strings sections): exit 2, the section it is cut in (or after, when the strings section
#    its sections name themselves from is missing) and where it starts.
# Each message is one line; nothing crashes; the whole files read without a note.
. "$(dirname "$0")/lib.sh"

T="$DATA/tracedat"
SYS=raw_syscalls:sys_enter,raw_syscalls:sys_exit
command -v python3 >/dev/null || skip "python3"
python3 - "$top_builddir/vmtrace-report" "$SYS" "$T"/*.dat <<'EOF' || fail "cut trace.dat files"
import os, re, struct, subprocess, sys

report, sys_pair, files = sys.argv[1], sys.argv[2], sys.argv[3:]
NAMES = {0: "options", 3: "flyrecord (CPU data)", 15: "strings", 16: "headers",
         17: "ftrace events", 18: "event formats", 19: "kallsyms", 20: "printk formats",
         21: "command lines", 22: "text (latency) data"}


def unfold(text):
    """the messages of a program's stderr, each one line again (a message past 120 columns
    is folded, its next lines starting with two spaces: common/log.c)"""
    lines = []
    for l in text.splitlines():
        if lines and l.startswith("  "):
            lines[-1] += " " + l[2:]
        else:
            lines.append(l)
    return lines


def cstr(b, p):
    e = b.index(b"\0", p)
    return b[p:e].decode(), e + 1


def first_header(b):
    """version, the offset after the first header (v7: after its compression names)"""
    ver, p = cstr(b, 10)
    p += 1 + 1 + 4
    hdr_end = p
    if int(ver) >= 7:
        _, p = cstr(b, p)
        _, p = cstr(b, p)
    return int(ver), hdr_end, p


def buffers_v7(b, p):
    """the sections, and the CPU data of the first buffer with some: (offset, size) each"""
    secs, off = [], p + 8
    while off < len(b):
        sid, flags, name, size = struct.unpack_from("<HHIQ", b, off)
        secs.append((off, sid, off + 16 + size, name))
        off += 16 + size
    cpus, needed = None, []
    flags = {off: struct.unpack_from("<H", b, off + 2)[0] for off, _, _, _ in secs}
    opt = struct.unpack_from("<Q", b, p)[0]
    while opt:
        needed.append(opt)
        size = struct.unpack_from("<Q", b, opt + 8)[0]
        q, end, nxt = opt + 16, opt + 16 + size, 0
        while q < end:
            oid, osize = struct.unpack_from("<HI", b, q)
            d = b[q + 6:q + 6 + osize]
            if oid == 0:
                nxt = struct.unpack_from("<Q", d)[0]
                break
            if oid in (16, 18):
                needed.append(struct.unpack_from("<Q", d)[0])
            if oid == 3:
                fly = struct.unpack_from("<Q", d)[0]
                _, r = cstr(d, 8)
                _, r = cstr(d, r)
                ncpu = struct.unpack_from("<I", d, r + 4)[0]
                c = [struct.unpack_from("<IQQ", d, r + 8 + 20 * i)[1:] for i in range(ncpu)]
                if cpus is None and any(sz for _, sz in c):
                    # compressed CPU data starts with a chunk count its size leaves out
                    extra = 4 if flags.get(fly, 0) & 1 else 0
                    cpus = (fly, [(o, sz + extra) for o, sz in c])
            q += 6 + osize
        opt = nxt
    return secs, needed, cpus


def parts_v6(b, p):
    """the parts of the v6 headers as the program names them, (start, name) each, and
    the CPU data of the top buffer"""
    parts = [(p, "header_page and header_event")]
    q = p + 12
    q += 8 + struct.unpack_from("<Q", b, q)[0]
    q += 13
    q += 8 + struct.unpack_from("<Q", b, q)[0]
    parts.append((q, "ftrace event formats"))
    n = struct.unpack_from("<I", b, q)[0]
    q += 4
    for _ in range(n):
        q += 8 + struct.unpack_from("<Q", b, q)[0]
    parts.append((q, "event formats"))
    nsys = struct.unpack_from("<I", b, q)[0]
    q += 4
    for _ in range(nsys):
        _, q = cstr(b, q)
        nev = struct.unpack_from("<I", b, q)[0]
        q += 4
        for _ in range(nev):
            q += 8 + struct.unpack_from("<Q", b, q)[0]
    for name, fmt in (("kallsyms", "<I"), ("printk formats", "<I"), ("saved command lines", "<Q")):
        parts.append((q, name))
        q += struct.calcsize(fmt) + struct.unpack_from(fmt, b, q)[0]
    parts.append((q, "headers (the CPU count and the options)"))
    ncpu = struct.unpack_from("<I", b, q)[0]
    q += 4
    word = b[q:q + 10]
    q += 10
    tables = []
    if word == b"options  \0":
        parts.append((q, "options"))
        while True:
            oid = struct.unpack_from("<H", b, q)[0]
            q += 2
            if oid == 0:
                break
            osize = struct.unpack_from("<I", b, q)[0]
            if oid == 3:    # an instance's buffer: its "flyrecord" and table there
                tables.append(struct.unpack_from("<Q", b, q + 4)[0] + 10)
            q += 4 + osize
        q += 10
    tables.insert(0, q)
    parts.append((q, "tables of CPU data"))
    parts += [(t, "tables of CPU data") for t in tables[1:]]
    parts.sort()
    bufs = [[struct.unpack_from("<QQ", b, t + 16 * i) for i in range(ncpu)] for t in tables]
    c = [x for x in bufs if any(sz for _, sz in x)][0]
    return parts, max(tables) + 16 * ncpu, c


def expect(b, n):
    """(status, a regex every message's set must match) for the file cut at n bytes"""
    ver, hdr_end, p = first_header(b)
    cut = "truncated: the file is cut at byte %d, inside its " % n
    if n < hdr_end:
        return 1, re.escape(cut + "first header")
    if n < p:
        return 1, re.escape(cut + "compression header")
    if ver == 6:
        parts, table_end, cpus = parts_v6(b, p)
        if n < table_end:
            name = [nm for at, nm in parts if at <= n][-1]
            return 1, re.escape(cut + name)
    else:
        if n < p + 8:
            return 1, re.escape(cut + "first header")
        secs, needed, (fly, cpus) = buffers_v7(b, p)
        if n == p + 8:
            return 1, re.escape("truncated: the file is cut at byte %d, after its first "
                                "header" % n)
        inside = [s for s in secs if s[0] < n < s[2]]
        ends = {s[0]: s[2] for s in secs}
        # whole sections before the cut that name themselves from a strings section
        # missing among them: a cut on a boundary is said as one
        whole = [s for s in secs if s[2] <= n]
        named = any(s[3] for s in whole) and not any(s[1] == 15 for s in whole)
        if inside:
            off, sid, end, _ = inside[0]
        else:   # a cut on a boundary: the section before it
            off, sid, end, _ = [s for s in secs if s[2] <= n][-1]
        where = "inside" if inside else "at the end of"
        if inside and n - off < 2:
            where = "inside the header of a section"
        if any(ends[o] > n for o in needed) or fly + 4 > n:
            if not inside and not named:
                return 1, re.escape("an option points past the end of the file: the file "
                                    "is cut short after a whole section, or damaged")
            if where.startswith("inside the header"):
                return 1, re.escape("truncated: the file is cut at byte %d, inside the header "
                                    "of a section at offset %d" % (n, off))
            return 1, re.escape("truncated: the file is cut at byte %d, %s its %s section "
                                "(at offset %d)" % (n, where, NAMES[sid], off))
    data_end = max(o + s for o, s in cpus if s)
    if n < data_end:
        return 2, (r"the recording was not finished \(the file is cut short (inside|before) "
                   r"(a CPU's data|a compression chunk)(, which starts)? at offset (\d+)\)")
    if not inside and not named:
        return 0, None
    if where.startswith("inside the header"):
        return 2, re.escape("the recording was not finished (the file is cut short after the "
                            "CPUs' data, inside the header of a section, which starts at "
                            "offset %d)" % off)
    return 2, re.escape("the recording was not finished (the file is cut short after the "
                        "CPUs' data, %s its %s section, which starts at offset %d)"
                        % (where, NAMES[sid], off))


bad = checked = 0
for f in files:
    b = open(f, "rb").read()
    ver, hdr_end, p = first_header(b)
    pair = [] if "kvm" in os.path.basename(f) else ["--pair", sys_pair]
    if "context" in f:
        pair = ["--pair", "sched:sched_switch,sched:sched_wakeup"]
    marks = {hdr_end, p, p + 8}
    if ver >= 7:
        secs, _, (_, cpus) = buffers_v7(b, p)
        marks |= {s[0] for s in secs} | {s[0] + 16 for s in secs}
    else:
        parts, table_end, cpus = parts_v6(b, p)
        marks |= {at for at, _ in parts} | {table_end}
    marks |= {o for o, s in cpus if s} | {o + s for o, s in cpus if s}
    offs = {m + d for m in marks for d in (-1, 0, 1)} | set(range(11, len(b), len(b) // 23))
    for n in sorted(o for o in offs if 11 <= o < len(b)):
        with open("cut.dat", "wb") as o:
            o.write(b[:n])
        r = subprocess.run([report] + pair + ["cut.dat"], capture_output=True, text=True)
        lines = unfold(r.stderr)
        want_rc, want = expect(b, n)
        checked += 1
        what = "%s cut at %d: exit %d, %r" % (os.path.basename(f), n, r.returncode, lines)
        if r.returncode != want_rc or any(not l.startswith("vmtrace-report: ") for l in lines):
            print("FAIL (status, lines):", what, "expected exit", want_rc)
            bad += 1
            continue
        if want_rc == 1:
            ok = len(lines) == 1 and re.fullmatch("vmtrace-report: cut.dat: " + want, lines[0])
        elif want_rc == 2:
            m = [re.search(want, l) for l in lines if "warning: cut.dat: the recording" in l]
            ok = len(m) == 1 and m[0] and (not m[0].groups() or int(m[0].groups()[-1]) <= n)
        else:
            ok = not any("cut" in l for l in lines)
        if not ok:
            print("FAIL:", what, "expected", want)
            bad += 1
    r = subprocess.run([report] + pair + [f], capture_output=True, text=True)
    if r.returncode != 0 or "cut" in r.stderr:
        print("FAIL: the whole %s: exit %d, %r" % (f, r.returncode, r.stderr))
        bad += 1
print("%d cuts of %d files checked" % (checked, len(files)))
sys.exit(1 if bad or checked < 20 * len(files) else 0)
EOF
exit 0
