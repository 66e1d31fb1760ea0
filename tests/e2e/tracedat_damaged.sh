#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace.dat whose headers lie about its data (tests/data/tracedat/kvm.v6.dat changed in
# place, its layout read here as trace-cmd.dat.v6(5) describes it, not by the program):
#  - a page size the kernel cannot write (not a power of two of 4096 bytes or more) or
#    one that is not the header_page's sub-buffer size: a one-line refusal naming both;
#  - a CPU's data inside the headers, or two CPUs on the same bytes: a one-line refusal;
#  - a CPU's size that is not whole pages: exit 2, the damage said, and the events of
#    the whole pages, which are trace-cmd's events before the last page's time;
# vmtrace-convert --to-vmt exits as the report does on each of them.
. "$(dirname "$0")/lib.sh"

T="$DATA/tracedat"
command -v python3 >/dev/null || skip "python3"
python3 - "$top_builddir" "$T/kvm.v6.dat" "$T/kvm.v6.report.txt.gz" <<'EOF' || fail "damaged trace.dat"
import gzip, re, struct, subprocess, sys

build, base, tcreport = sys.argv[1:]
REPORT, CONVERT = build + "/vmtrace-report", build + "/vmtrace-convert"
b = bytearray(open(base, "rb").read())
bad = 0


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
    return r.returncode, r.stdout, r.stderr.splitlines()


def check(name, data, want_rc, want_msg, want_events=None):
    """the report and convert --to-vmt of data: their status, the message (a regex), and
    with want_events the report's count of events"""
    global bad
    path = name + ".dat"
    open(path, "wb").write(data)
    rc, out, err = run(REPORT, [path])
    ok = rc == want_rc and any(re.search(want_msg, l) for l in err)
    if want_rc == 1:
        ok = ok and len(err) == 1 and err[0].startswith("vmtrace-report: %s: " % path)
    if want_events is not None:
        m = re.search(r"Number of VM events = (\d+)", out)
        ok = ok and m and int(m.group(1)) == want_events
    crc, _, cerr = run(CONVERT, ["--to-vmt", "-o", name + ".vmt", path])
    ok = ok and crc == want_rc and any(re.search(want_msg, l) for l in cerr)
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

# a size cut by 100 bytes: the last page is not whole; the events before its time count
last_ts = struct.unpack_from("<Q", b, off + size - PS)[0]
want = sum(1 for ts, cpu in EVENTS if cpu != DATA_CPU or ts < last_ts)
assert 0 < want < len(EVENTS)
check("odd", with_cpu(DATA_CPU, off, size - 100), 2,
      r"damaged data skipped: 1 block \(a CPU's data that is not whole pages\): the block "
      r"at offset %d" % (off + size - PS), want)

print("%d damaged files checked" % 10)
sys.exit(1 if bad else 0)
EOF
finish
