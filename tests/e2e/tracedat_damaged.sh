#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace.dat whose headers or pages lie about its data (tests/data/tracedat/kvm.v6.dat
# and kvm.v7zlib.dat changed in place, their layout read here as trace-cmd.dat.v6(5) and
# trace-cmd.dat.v7(5) describe it, not by the program; the values expected come from
# trace-cmd's own report of the same events, kvm.v6.report.txt.gz, one vCPU task on one CPU):
#  - a page size the kernel cannot write (not a power of two of 4096 bytes or more) or
#    one that is not the header_page's sub-buffer size: a one-line refusal naming both;
#  - a CPU's data inside the headers, or two CPUs on the same bytes: a one-line refusal;
#  - a CPU's size that is not whole pages: exit 2, the damage said, and the events of
#    the whole pages, which are trace-cmd's events before the last page's time;
#  - a page stamped out of order with its CPU's pages (before the one before it, past the
#    next one, past the time its CPU's statistics were read, or 0): left out as a damaged
#    chunk is, exit 2, its events lost: the event count and the longest pair those of
#    trace-cmd's events outside that page's time give, with no pair across it, and the
#    same report on two threads as on one;
#  - a page whose length passes its end: left out as found when the file is opened, so
#    that vmtrace-convert --to-vmt, which copies pages without decoding them, says it too;
#  - a v7 BUFFER option naming a CPU numbered 8192 or more: a one-line refusal saying so;
# vmtrace-convert --to-vmt exits as the report does on each of them.
. "$(dirname "$0")/lib.sh"

T="$DATA/tracedat"
command -v python3 >/dev/null || skip "python3"
python3 - "$top_builddir" "$T/kvm.v6.dat" "$T/kvm.v6.report.txt.gz" "$T/kvm.v7zlib.dat" \
	<<'EOF' || fail "damaged trace.dat"
import gzip, json, re, struct, subprocess, sys, zlib

build, base, tcreport = sys.argv[1:4]
REPORT, CONVERT = build + "/vmtrace-report", build + "/vmtrace-convert"
b = bytearray(open(base, "rb").read())
bad = 0


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


def cstr(p):
    e = b.index(b"\0", p)
    return e + 1


def layout():
    """the page size's offset, the header_page's sub-buffer size, where the v6 headers end
    (after the table of CPU data) and that table's offset: (offset, size) per CPU"""
    p = cstr(10)                            # after the version string
    ps_at = p + 2
    q = ps_at + 4 + 12
    hp_len = struct.unpack_from("<Q", b, q)[0]
    hp = b[q + 8:q + 8 + hp_len].decode()
    m = re.search(r"field: char data;\s*offset:(\d+);\s*size:(\d+);", hp)
    subbuf = int(m.group(1)) + int(m.group(2))
    q += 8 + hp_len + 13
    q += 8 + struct.unpack_from("<Q", b, q)[0]
    n = struct.unpack_from("<I", b, q)[0]
    q += 4
    for _ in range(n):
        q += 8 + struct.unpack_from("<Q", b, q)[0]
    nsys = struct.unpack_from("<I", b, q)[0]
    q += 4
    for _ in range(nsys):
        q = cstr(q)
        nev = struct.unpack_from("<I", b, q)[0]
        q += 4
        for _ in range(nev):
            q += 8 + struct.unpack_from("<Q", b, q)[0]
    for fmt in ("<I", "<I", "<Q"):
        q += struct.calcsize(fmt) + struct.unpack_from(fmt, b, q)[0]
    ncpu = struct.unpack_from("<I", b, q)[0]
    q += 4
    assert b[q:q + 10] == b"options  \0"
    q += 10
    while True:
        oid = struct.unpack_from("<H", b, q)[0]
        q += 2
        if oid == 0:
            break
        q += 4 + struct.unpack_from("<I", b, q)[0]
    assert b[q:q + 10] == b"flyrecord\0"
    table = q + 10
    cpus = [struct.unpack_from("<QQ", b, table + 16 * i) for i in range(ncpu)]
    return ps_at, subbuf, table + 16 * ncpu, table, cpus


PS_AT, SUBBUF, HEADERS_END, TABLE, CPUS = layout()
PS = struct.unpack_from("<I", b, PS_AT)[0]
DATA_CPU = [i for i, (o, s) in enumerate(CPUS) if s][0]


def tracecmd_events():
    """trace-cmd report -t's kvm events of the file: (ns, cpu) each"""
    out = []
    for line in gzip.open(tcreport, "rt"):
        m = re.search(r"\[(\d+)\]\s+(\d+)\.(\d{9}): kvm_(exit|entry):", line)
        if m:
            out.append((int(m.group(2)) * 10**9 + int(m.group(3)), int(m.group(1))))
    return out


EVENTS = tracecmd_events()


def run(prog, args):
    r = subprocess.run([prog] + args, capture_output=True, text=True)
    return r.returncode, r.stdout, unfold(r.stderr)


def check(name, data, want_rc, want_msg, want_events=None):
    """the report and convert --to-vmt of data: their status, the message (a regex; None:
    nothing said), and with want_events the report's count of events"""
    global bad
    path = name + ".dat"
    open(path, "wb").write(data)
    rc, out, err = run(REPORT, [path])
    said = lambda lines: not lines if want_msg is None else any(re.search(want_msg, l)
                                                                for l in lines)
    ok = rc == want_rc and said(err)
    if want_rc == 1:
        ok = ok and len(err) == 1 and err[0].startswith("vmtrace-report: %s: " % path)
    if want_events is not None:
        m = re.search(r"Number of VM events = (\d+)", out)
        ok = ok and m and int(m.group(1)) == want_events
    crc, _, cerr = run(CONVERT, ["--to-vmt", "-o", name + ".vmt", path])
    ok = ok and crc == want_rc and said(cerr)
    if not ok:
        print("FAIL %s: report exit %d %r, convert exit %d %r; wanted exit %d, %r, %r events"
              % (name, rc, err, crc, cerr, want_rc, want_msg, want_events))
        bad += 1


def with_u32(at, v):
    d = bytearray(b)
    struct.pack_into("<I", d, at, v)
    return d


def with_cpu(i, off, size):
    d = bytearray(b)
    struct.pack_into("<QQ", d, TABLE + 16 * i, off, size)
    return d


assert len(EVENTS) == 1248 and PS == SUBBUF == 4096
rc, _, err = run(REPORT, [base])
assert rc == 0 and not err, (rc, err)

# page sizes: the header_page's sub-buffer size differs, or no kernel writes it
for ps in (2 * SUBBUF, 16 * SUBBUF, 256 * SUBBUF):
    check("ps%d" % ps, with_u32(PS_AT, ps), 1,
          r"page size %d, but its header_page gives pages of %d bytes" % (ps, SUBBUF))
for ps in (SUBBUF // 2, SUBBUF + 100, 6, 2**32 - 1):
    check("ps%d" % ps, with_u32(PS_AT, ps), 1, r"bad page size %d\b" % ps)

# a CPU's data in the headers, or on another CPU's bytes (the same, or half of them)
off, size = CPUS[DATA_CPU]
other = 1 - DATA_CPU
check("in_headers", with_cpu(DATA_CPU, HEADERS_END - 16, size), 1,
      r"CPU %d's data starts at offset %d, inside the headers \(they end at %d\)"
      % (DATA_CPU, HEADERS_END - 16, HEADERS_END))
check("same", with_cpu(other, off, size), 1, r"the data of CPU \d and CPU \d overlap")
check("half", with_cpu(other, off + size // 2, size // 2), 1,
      r"the data of CPU %d and CPU %d overlap \(from offset %d\)"
      % (DATA_CPU, other, off + size // 2))

# a size whose end wraps past 2^64: the file holds what it holds of it, read as cut short
# (it was "out of memory": 2^52 pages' times asked for)
check("wrap", with_cpu(DATA_CPU, off, 2**64 - off + PS), 2, r"the file is cut short inside "
      r"a CPU's data, which starts at offset %d" % off)

# a size cut by 100 bytes: the last page is not whole; the events before its time count
last_ts = struct.unpack_from("<Q", b, off + size - PS)[0]
want = sum(1 for ts, cpu in EVENTS if cpu != DATA_CPU or ts < last_ts)
assert 0 < want < len(EVENTS)
check("odd", with_cpu(DATA_CPU, off, size - 100), 2,
      r"damaged data skipped: 1 block \(a CPU's data that is not whole pages\): the block "
      r"at offset %d" % (off + size - PS), want)


def tracecmd_pairs(dropped_from, dropped_until):
    """trace-cmd's events without those of a dropped page of DATA_CPU (times in [from,
    until)), and the longest exit-entry pair of one task among them that no dropped event
    lies inside (the report pairs nothing across lost events)"""
    kept, longest, open_exit = 0, 0, {}
    for line in gzip.open(tcreport, "rt"):
        m = re.search(r"-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}): kvm_(exit|entry):", line)
        if not m:
            continue
        pid, cpu = int(m.group(1)), int(m.group(2))
        ts = int(m.group(3)) * 10**9 + int(m.group(4))
        if cpu == DATA_CPU and dropped_from <= ts < dropped_until:
            open_exit.clear()       # a hole: no pair spans it
            continue
        kept += 1
        if m.group(5) == "exit":
            open_exit[pid] = ts
        elif pid in open_exit:
            longest = max(longest, ts - open_exit.pop(pid))
    return kept, longest


def page_ts(i):
    return struct.unpack_from("<Q", b, off + i * PS)[0]


def check_page(name, data, page, npages):
    """page of DATA_CPU's data stamped out of order: left out, said, its events lost"""
    global bad
    until = page_ts(page + 1) if page + 1 < npages else 2**64
    want_events, want_max = tracecmd_pairs(page_ts(page), until)
    check(name, data, 2, r"damaged data skipped: 1 block \(a page whose time is out of order "
          r"with its CPU's other pages\): the block at offset %d" % (off + page * PS),
          want_events)
    rc, out, _ = run(REPORT, ["--json", name + ".dat"])
    got = json.loads(out)["latency_ns"]["max"] if out else None
    one = run(REPORT, ["--jobs", "1", name + ".dat"])
    two = run(REPORT, ["--jobs", "2", name + ".dat"])
    if got != want_max or one != two:
        print("FAIL %s: max %r ns, trace-cmd's events give %d; --jobs 2 same as 1: %s"
              % (name, got, want_max, one == two))
        bad += 1


npages = size // PS
for page, add in ((5, 3600 * 10**9), (npages - 1, 3600 * 10**9), (0, None)):
    d = bytearray(b)
    struct.pack_into("<Q", d, off + page * PS, 0 if add is None else page_ts(page) + add)
    check_page("time%d" % page, d, page, npages)
# the last page half a second after its CPU's "now ts": per-CPU clocks are not synchronised
# with the CPU trace-cmd read the statistics on (source_tracedat.c: NOW_SKEW_MARGIN); kept
st = b.index(b"CPU: %d\nentries:" % DATA_CPU)
sec, us = re.search(rb"now ts: *(\d+)\.(\d{6})", b[st:st + 400]).groups()
now = int(sec) * 10**9 + int(us) * 1000
d = bytearray(b)
struct.pack_into("<Q", d, off + (npages - 1) * PS, now + 5 * 10**8)
check("skewed_last", d, 0, None, tracecmd_pairs(0, 0)[0])

# The same in a compression chunk (kvm.v7zlib.dat holds kvm.v6.dat's pages, 4 a chunk):
# its pages come out only as it is read, and the chunk is left out whole, as a damaged one.
z = open(sys.argv[4], "rb").read()
zoff = z.index(struct.pack("<II", 1, 4096))     # BUFFER option's CPU 1: <4 cpu> <8 off>
zoff = struct.unpack_from("<Q", z, zoff + 4)[0]
q, chunk = zoff + 4, None
for i in range(struct.unpack_from("<I", z, zoff)[0]):
    cs, rs = struct.unpack_from("<II", z, q)
    raw = bytearray(zlib.decompress(z[q + 8:q + 8 + cs]))
    if chunk is None and rs // PS >= 3 and i > 0:
        chunk = (q, cs, raw)
    q += 8 + cs
q, cs, raw = chunk
first, npg = struct.unpack_from("<Q", raw, 0)[0], len(raw) // PS
nxt = [i for i in range(npages) if page_ts(i) == first][0] + npg
struct.pack_into("<Q", raw, PS, struct.unpack_from("<Q", raw, PS)[0] + 3600 * 10**9)
comp = min((zlib.compress(bytes(raw), lv) for lv in range(1, 10)), key=len)
assert len(comp) <= cs, "the changed chunk does not fit"
d = bytearray(z)
d[q + 8:q + 8 + cs] = comp + bytes(cs - len(comp))   # zlib stops at its stream's end
want_events, want_max = tracecmd_pairs(first, page_ts(nxt) if nxt < npages else 2**64)
check("ztime", d, 2, r"damaged data skipped: 1 chunk \(a page whose time is out of order "
      r"with its CPU's other pages\): the chunk at offset %d, CPU %d, %d pages"
      % (q + 8, DATA_CPU, npg), want_events)
rc, out, _ = run(REPORT, ["--json", "ztime.dat"])
same = run(REPORT, ["--jobs", "1", "ztime.dat"]) == run(REPORT, ["--jobs", "2", "ztime.dat"])
if rc != 2 or json.loads(out)["latency_ns"]["max"] != want_max or not same:
    print("FAIL ztime: max %r, trace-cmd's events give %d; --jobs 2 same as 1: %s"
          % (out[:80], want_max, same))
    bad += 1

# A page whose length passes its end does not decode: found as the file is opened (in a
# compression chunk, as it is read), so that convert --to-vmt, which copies pages without
# decoding them, says the damage and exits 2 as the report does.
d = bytearray(b)
struct.pack_into("<Q", d, off + 3 * PS + 8, PS)
want_events, _ = tracecmd_pairs(page_ts(3), page_ts(4))
check("commit", d, 2, r"damaged data skipped: 1 block \(page commit beyond the page size\): "
      r"the block at offset %d" % (off + 3 * PS), want_events)
raw = bytearray(zlib.decompress(z[q + 8:q + 8 + cs]))
struct.pack_into("<Q", raw, PS + 8, PS)
comp = min((zlib.compress(bytes(raw), lv) for lv in range(1, 10)), key=len)
assert len(comp) <= cs, "the changed chunk does not fit"
d = bytearray(z)
d[q + 8:q + 8 + cs] = comp + bytes(cs - len(comp))
want_events, _ = tracecmd_pairs(first, page_ts(nxt) if nxt < npages else 2**64)
check("zcommit", d, 2, r"damaged data skipped: 1 chunk \(page commit beyond the page size\): "
      r"the chunk at offset %d, CPU %d, %d pages" % (q + 8, DATA_CPU, npg), want_events)



def buffer_cpu_at(f):
    """where the first BUFFER option of v7 file f names its first CPU (trace-cmd.dat.v7(5):
    <8 offset> name clock <4 page size> <4 CPUs>, then <4 cpu> <8 offset> <8 size> each)"""
    p = f.index(b"\0", 10) + 1 + 6
    p = f.index(b"\0", f.index(b"\0", p) + 1) + 1
    opt = struct.unpack_from("<Q", f, p)[0]
    assert struct.unpack_from("<H", f, opt + 2)[0] == 0      # options stored as they are
    q = opt + 16
    while True:
        oid, osize = struct.unpack_from("<HI", f, q)
        if oid == 3:
            r = f.index(b"\0", q + 6 + 8) + 1
            r = f.index(b"\0", r) + 1
            assert struct.unpack_from("<I", f, r + 4)[0] >= 1
            return r + 8
        assert oid != 0
        q += 6 + osize


# A CPU number no machine has: said as what it is, not as the reader's metadata
at = buffer_cpu_at(z)
assert struct.unpack_from("<I", z, at)[0] == DATA_CPU
for cpu in (65535, 8192, 2**32 - 1):
    d = bytearray(z)
    struct.pack_into("<I", d, at, cpu)
    check("cpu%d" % cpu, d, 1, r"damaged BUFFER option: it names CPU %d, a number a trace.dat "
          r"cannot have \(CPUs are numbered below 8192\)$" % cpu)
d = bytearray(z)
struct.pack_into("<I", d, at, 8191)             # the largest the reader takes: read whole
check("cpu8191", d, 0, None, len(EVENTS))
rc, out, _ = run(REPORT, ["cpu8191.dat"])
if "Traced CPUs: 8191\n" not in out:
    print("FAIL cpu8191: %r" % out[:300])
    bad += 1

print("%d damaged files checked" % 20)
sys.exit(1 if bad else 0)
EOF
finish
