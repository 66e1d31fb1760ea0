#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace.dat's stored pages are judged (time order, length) as the report reads them, not
# when the file is opened: opening reads no page's header but the first few of each CPU
# (the recording's start), so a file larger than the page cache is read once. The
# judgement is the one open made before (common/source_tracedat.c), checked here against
# a recount in Python of the file's pages, laid out as trace-cmd.dat.v6(5) describes them:
#  - the pread64 calls of 64 bytes or less (a page header's reads) number fewer than a
#    tenth of the pages, where one per page was read before the pass, and no header is read
#    twice: in the plain report, and with --html and --interval, which judge the pages
#    before each CPU's last chunk before the pass (1 MiB at a time);
#  - pages damaged on several CPUs (a time set back, a time 0, a length past the page, a
#    run of them across where the reading cuts its chunks): the blocks left out, the first
#    one's place (the first CPU's in the file's order, not the first met in time), the
#    pages and the chunks as open cut them around the holes, in --json;
#  - vmtrace-convert --to-vmt, which judges the pages when it opens the file, says the same;
#  - pages stamped 2^64-1, 2^64-2 and 2^64-3 (values the judgement once used as marks among
#    the times) are times out of order: left out by the report and by the copy alike, which
#    then hold the same pairs.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3"
"$HELPERS/mkvmt" --random 60000 3 "$DATA/formats/linux-6.18-x86_64" m.vmt || fail mkvmt
"$HELPERS/mktracedat" -V 6 -z none m.vmt m.dat || fail mktracedat

python3 - "$top_builddir" m.dat <<'EOF' || fail "pages judged as read"
import json, os, re, shutil, struct, subprocess, sys

build, path = sys.argv[1:3]
REPORT, CONVERT = build + "/vmtrace-report", build + "/vmtrace-convert"
b0 = open(path, "rb").read()


def cstr(b, p):
    return b.index(b"\0", p) + 1


def layout(b):
    """page size and, per CPU, where its data starts and how many bytes it has"""
    p = cstr(b, 10)
    ps = struct.unpack_from("<I", b, p + 2)[0]
    q = p + 2 + 4 + 12
    q += 8 + struct.unpack_from("<Q", b, q)[0] + 13
    q += 8 + struct.unpack_from("<Q", b, q)[0]
    n = struct.unpack_from("<I", b, q)[0]
    q += 4
    for _ in range(n):
        q += 8 + struct.unpack_from("<Q", b, q)[0]
    nsys = struct.unpack_from("<I", b, q)[0]
    q += 4
    for _ in range(nsys):
        q = cstr(b, q)
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
    while struct.unpack_from("<H", b, q)[0]:
        q += 2 + 4 + struct.unpack_from("<I", b, q + 2)[0]
    q += 2
    assert b[q:q + 10] == b"flyrecord\0"
    return ps, [struct.unpack_from("<QQ", b, q + 10 + 16 * i) for i in range(ncpu)]


ps, cpus = layout(b0)
pages = sum(size // ps for _, size in cpus)
# the chunks a reader holds: 1 MiB of pages (common/chunk.h), fewer on more than 32 CPUs
SLICE = (1 << 20) // ps


# the latest time a page may bear (mktracedat writes no "now ts" that would bound it)
UNTIL = 2**64 - 4


def judge(b):
    """per CPU, the pages left out (and why), as the rule in common/source_tracedat.c says:
    a length past the page; a time 0, past UNTIL, before the last page kept, or past the
    next page's with records while that one is not before the last page kept"""
    out = []
    for c, (off, size) in enumerate(cpus):
        n = size // ps
        ts = []
        for k in range(n):
            t, commit = struct.unpack_from("<QQ", b, off + k * ps)
            commit &= (1 << 27) - 1
            ts.append(None if not commit else "commit" if commit > ps - 16 else t)
        prev, left = None, {}
        for k in range(n):
            if ts[k] == "commit":
                left[k] = "page commit beyond the page size"
                continue
            if ts[k] is None:
                continue
            nxt = next((ts[q] for q in range(k + 1, n) if isinstance(ts[q], int)), None)
            if ts[k] == 0 or ts[k] > UNTIL or (prev is not None and ts[k] < prev) or \
               (nxt is not None and nxt < ts[k] and (prev is None or nxt >= prev)):
                left[k] = "a page whose time is out of order with its CPU's other pages"
                continue
            prev = ts[k]
        out.append((n, left))
    return out


def chunks_of(judged):
    """runs of the pages kept, cut every SLICE pages"""
    total = 0
    for n, left in judged:
        run = 0
        for k in range(n):
            if k in left:
                run = 0
            elif run in (0, SLICE):
                total, run = total + 1, 1
            else:
                run += 1
    return total


def report(f):
    r = subprocess.run([REPORT, "--json", f], capture_output=True, text=True)
    return r.returncode, json.loads(r.stdout) if r.stdout else None, r.stderr


# 1. Opening reads the headers of a few pages only; the pass reads the chunks. A time
# series judges the pages before each CPU's last chunk first, in reads of 1 MiB.
if shutil.which("strace") and subprocess.run(["strace", "-o", "/dev/null", "true"]).returncode == 0:
    for opts in ([], ["--html", "h.html"], ["--interval", "10ms"]):
        # LeakSanitizer cannot run under ptrace: an ASan build counts its reads without it
        env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                   ":detect_leaks=0")
        subprocess.run(["strace", "-f", "-e", "trace=pread64", "-o", "st.txt", REPORT] + opts +
                       [path], stdout=subprocess.DEVNULL, check=True, env=env)
        small = []
        for line in open("st.txt"):
            # a call, or its "<... pread64 resumed>" line when threads interleave
            m = re.search(r", (\d+), (\d+)\)\s+= (\d+)", line)
            if m and "pread64" in line and int(m.group(1)) <= 64:
                small.append(int(m.group(2)))
        if len(small) * 10 >= pages:
            sys.exit(f"{opts}: {len(small)} reads of a page header for {pages} pages")
        again = sorted({at for at in small if small.count(at) > 1 and
                        any(off <= at < off + size for off, size in cpus)})
        if again:
            sys.exit(f"{opts}: page headers read more than once, at {again[:5]}")
else:
    print("SKIP (part): strace cannot trace here", file=sys.stderr)
    open("skipped", "w").write("strace")

# 2. Damage on every CPU, in an order the pass does not meet it in.
b = bytearray(b0)


def page_at(c, k):
    return cpus[c][0] + k * ps


struct.pack_into("<Q", b, page_at(0, 900), struct.unpack_from("<Q", b0, page_at(0, 899))[0] - 5)
struct.pack_into("<Q", b, page_at(1, 3), 0)
for k in range(SLICE - 2, SLICE + 3):           # a run across where the reading cuts
    struct.pack_into("<Q", b, page_at(2, k) + 8, ps * 2)
open("d.dat", "wb").write(b)
judged = judge(b)
blocks = sum(len(left) for _, left in judged)
first = next((c, min(left)) for c, (_, left) in enumerate(judged) if left)
why = judged[first[0]][1][first[1]]
rc, j, err = report("d.dat")
if rc != 2 or j is None:
    sys.exit(f"report of d.dat: exit {rc}: {err}")
want = {"bad_blocks": blocks, "pages": pages - blocks, "chunks": chunks_of(judged)}
got = {k: j["summary"][k] if "summary" in j else j[k] for k in want}
if got != want:
    sys.exit(f"d.dat: {got}, recount {want}")
line = (f"damaged data skipped: {blocks} blocks; the first ({why}): the block at offset "
        f"{page_at(*first)}")
def unfold(text):
    # a message past 120 columns is folded, its next lines starting with two spaces (log.h)
    return text.replace("\n  ", " ")
if line not in unfold(err):
    sys.exit(f"d.dat: no '{line}' in:\n{err}")

# 3. The copy, judged at open, says the same of the damage.
r = subprocess.run([CONVERT, "--to-vmt", "-o", "d.vmt", "d.dat"], capture_output=True, text=True)
if r.returncode != 2 or line not in unfold(r.stderr):
    sys.exit(f"--to-vmt of d.dat: exit {r.returncode}, '{line}' not in:\n{r.stderr}")

# 4. Pages stamped with the top values of 2^64: the last page of CPU 0 (no page after it
# to be out of order with), one inside CPU 1's pages, the first of CPU 2 (the start).
for top in (2**64 - 1, 2**64 - 2, 2**64 - 3):
    b = bytearray(b0)
    for c, k in ((0, cpus[0][1] // ps - 1), (1, 100), (2, 0)):
        struct.pack_into("<Q", b, page_at(c, k), top)
    open("t.dat", "wb").write(b)
    judged = judge(b)
    blocks = sum(len(left) for _, left in judged)
    first = next((c, min(left)) for c, (_, left) in enumerate(judged) if left)
    rc, j, err = report("t.dat")
    want = {"bad_blocks": blocks, "pages": pages - blocks, "chunks": chunks_of(judged)}
    got = {k: j["summary"][k] if "summary" in j else j[k] for k in want} if j else None
    if rc != 2 or got != want:
        sys.exit(f"t.dat stamped {top}: exit {rc}, {got}, recount {want}: {err}")
    line = (f"damaged data skipped: {blocks} blocks; the first "
            f"({judged[first[0]][1][first[1]]}): the block at offset {page_at(*first)}")
    if line not in unfold(err):
        sys.exit(f"t.dat stamped {top}: no '{line}' in:\n{err}")
    r = subprocess.run([CONVERT, "--to-vmt", "-o", "t.vmt", "t.dat"], capture_output=True,
                       text=True)
    if r.returncode != 2 or line not in unfold(r.stderr):
        sys.exit(f"--to-vmt of t.dat stamped {top}: exit {r.returncode}:\n{r.stderr}")
    rc2, j2, err2 = report("t.vmt")
    keys = ("pairs", "events", "span_ns", "latency_ns")
    if j2 is None or any(j2[k] != j[k] for k in keys):
        sys.exit(f"stamped {top}: the copy's {[j2 and j2[k] for k in keys]}, "
                 f"the report's {[j[k] for k in keys]}")
EOF
[ -f skipped ] && skip_part "strace cannot trace here (the count of header reads)"
finish
