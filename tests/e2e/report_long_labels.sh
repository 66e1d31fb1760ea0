#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The text views fit 120 columns whatever the names: long VM names (the VM map of
# vmtrace-record --vm), long comms with 7-digit pids, long exit reason and system call
# names, many pCPUs. Every line of the text views is at most 120 columns; a name cut to its
# column ends with '~' and its whole id ("(pid N)", "(N)", "(0x402)") and begins as the
# name does; the figures of the rows are the JSON's for the same task or reason (cut to
# four digits as the tables print them, recounted here); the exit lists' columns line up
# under their header and show each exit's whole reason; the histogram's columns hold the
# JSON's counts and a line says which pCPUs' columns were left out. A VM map that is not
# well formed (man/vmtrace-file.5) labels nothing: it is left out whole.
. "$(dirname "$0")/lib.sh"

F="$DATA/formats/linux-6.18-x86_64"
LONG=web1-frontend-production-eu-west-with-a-very-long-libvirt-domain-name-for-tests
MID=web1-frontend-production-eu-west-1a

# 1. KVM: two VMs, one with a name too long for 24 columns; 7-digit pids; SVM reasons with
# long names (avic_unaccelerated_access, vmgexit_ext_guest_request, ...page_state_change)
python3 - "$MID" >kvm.txt <<'PY'
import sys
print("cpus 0-1")
print("meta vm.count 2")
print("meta vm.0.name " + sys.argv[1])
print("meta vm.0.pid 900")
print("meta vm.0.vcpus 4194301:0,4194302:1")
print("meta vm.1.name db")
print("meta vm.1.pid 901")
print("meta vm.1.vcpus 2000:0")
ts = 1000
reasons = [0x72, 0x402, 0x80000012, 0x7b, 0x80000010]
for k in range(300):
    for cpu, pid, v in ((0, 4194301, 0), (1, 4194302, 1), (0, 2000, 0), (1, 3999999, 3)):
        print(f"exit {cpu} {ts} {pid} {reasons[(k + pid) % 5]:#x} {v}")
        ts += 100 + (k * 37 + pid) % 9000
        print(f"entry {cpu} {ts} {pid} {v}")
        ts += 500
PY
"$HELPERS/mkvmt" "$F" kvm.vmt <kvm.txt || fail "mkvmt kvm.vmt"
# the HTML page names the VMs' vCPU threads as the text does (it had "vCPU 0 (pid N)")
vmtrace-report --html kvm.html kvm.vmt >/dev/null 2>&1 || fail "--html kvm.vmt"
for label in "$MID/vcpu0 (pid 4194301)" "$MID/vcpu1 (pid 4194302)" "db/vcpu0 (pid 2000)"; do
	grep -qF ">$label" kvm.html || fail "the page has no '$label'"
done
# so does --interval's table: "db/vcpu0 (2000)", the long VM's cut before its pid (its vcpu
# column tells the two apart: 18 columns leave no room for "/vcpuN" too)
vmtrace-report --interval 100ms kvm.vmt >kvm-iv.txt 2>/dev/null || fail "--interval kvm.vmt"
grep -q " db/vcpu0 (2000) " kvm-iv.txt || fail "--interval: no 'db/vcpu0 (2000)' row"
grep -q " 1 web1-fr~ (4194302) " kvm-iv.txt || fail "--interval: $(grep -m1 '(4194302)' kvm-iv.txt)"
widths_ok kvm-iv.txt || fail "--interval: lines over 120 columns"
# a vCPU index of two digits and VM names of 9 and 16 characters: every row keeps its VM's
# "/vcpuN (pid)" whole (names kept 15 bytes once, and vCPU 10 read "vcpu1")
printf '%s\n' "meta vm.count 2" "meta vm.0.name abcdefghi" "meta vm.0.pid 900" \
	"meta vm.0.vcpus 1000:10,1001:1" "meta vm.1.name database-primary" "meta vm.1.pid 901" \
	"meta vm.1.vcpus 2000:0,2001:1" "page 0" \
	"exit 0 1000 1000 30 10" "entry 0 2000 1000 10" "exit 0 3000 1001 30 1" "entry 0 4000 1001 1" \
	"exit 0 5000 2000 30 0" "entry 0 6000 2000 0" "exit 0 7000 2001 30 1" "entry 0 8000 2001 1" |
	"$HELPERS/mkvmt" "$F" vm10.vmt || fail "mkvmt vm10.vmt"
vmtrace-report --interval 1ms vm10.vmt >vm10.txt 2>/dev/null || fail "--interval vm10.vmt"
for want in "abc~/vcpu10 (1000)" "abcd~/vcpu1 (1001)" "data~/vcpu0 (2000)" "data~/vcpu1 (2001)"; do
	grep -qF " $want " vm10.txt || fail "--interval: no '$want' row: $(sed -n '/^Time series/,$p' vm10.txt)"
done
# the long VM's two vCPUs, cut, still read apart: "/vcpuN" stays before the id
vmtrace-report kvm.vmt >kvm-cut.txt 2>/dev/null || fail "report kvm.vmt"
grep -q "^  web[^ ]*~/vcpu0 (pid 4194301) " kvm-cut.txt && grep -q "^  web[^ ]*~/vcpu1 (pid 4194302) " kvm-cut.txt ||
	fail "the cut vCPU rows do not keep /vcpuN: $(grep -m2 'web1' kvm-cut.txt)"

# 2. System calls of tasks without a vCPU, named by sched_switch: 15-character comms and
# 7-digit pids (longer than the 24 columns), long system call names
python3 - >sys.txt <<'PY'
print("events raw_syscalls:sys_enter raw_syscalls:sys_exit")
print("meta kernel.machine x86_64")     # the system calls' names are x86-64's
print("cpus 0")
print("context sched:sched_switch")
ts = 1000
tasks = [(4100001, "averyverylongnm"), (4100002, "anotherlongcomm"), (77, "sh")]
ids = [450, 444, 147, 39]
for pid, comm in tasks:
    print(f"ctx 0 {ts} sched:sched_switch 0 {pid} prev_comm=x prev_pid=5 prev_state=1 "
          f"next_comm={comm} next_pid={pid}")
    ts += 10
for k in range(400):
    pid = tasks[k % 3][0]
    print(f"exit 0 {ts} {pid} {ids[k % 4]}")
    ts += 50 + (k * 131) % 20000
    print(f"entry 0 {ts} {pid}")
    ts += 300
PY
"$HELPERS/mkvmt" "$F" sys.vmt <sys.txt || fail "mkvmt sys.vmt"

# 3. Many pCPUs (--random: task 1000 + c, vCPU c, on CPU c), the VM map naming them
vcpus=$(python3 -c 'print(",".join("%d:%d" % (1000 + c, c) for c in range(24)))')
"$HELPERS/mkvmt" --meta vm.count=1 --meta "vm.0.name=$LONG" --meta vm.0.pid=900 \
	--meta "vm.0.vcpus=$vcpus" --random 40000 24 "$F" many.vmt || fail "mkvmt many.vmt"
"$HELPERS/mkvmt" --random 20000 6 "$F" six.vmt || fail "mkvmt six.vmt"

# text VIEW NAME OPTIONS... FILE: the text into NAME.txt, its JSON into NAME.json
text() {
	name=$1
	shift
	run vmtrace-report "$@"
	expect_rc 0 "vmtrace-report $*"
	mv out.txt "$name.txt"
	run vmtrace-report --json "$@"
	expect_rc 0 "vmtrace-report --json $*"
	mv out.txt "$name.json"
	widths_ok "$name.txt" || fail "vmtrace-report $*: lines over 120 columns"
}

text kvm --top 40 kvm.vmt
text kvmthr --threshold 8us kvm.vmt
text sys --top 40 sys.vmt
text systhr --threshold 15us sys.vmt
text many many.vmt
text manyhist --histogram --bucket 100ns --buckets 40 many.vmt
text sixhist --histogram --bucket 100ns --buckets 40 six.vmt
text sixlog --histogram --log six.vmt
text why "$DATA/why/sample/kvm.vmt"

PYTHONPATH="$top_srcdir/tests/helpers" python3 - "$MID" <<'PY' || fail "the tables against the JSON"
import json, re, sys
from latfmt import lat

MID = sys.argv[1]
units = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}

def load(name):
    return open(name + ".txt").read().split("\n"), json.load(open(name + ".json"))

def table(lines, title):
    """The header and rows of the table whose title line starts with title."""
    at = [i for i, l in enumerate(lines) if l.startswith(title)]
    assert at, "no table " + title
    m = re.search(r"latencies in (\w+), totals in (\w+):", lines[at[0]])
    rows = []
    for l in lines[at[0] + 2:]:
        # the window table follows the task table's rows, headed by the same title
        if not l.startswith("  ") or l.startswith("  (") or \
                l.split()[:2] == lines[at[0] + 1].split()[:2]:
            break
        rows.append(l)
    return lines[at[0] + 1], rows, (m.group(1), m.group(2)) if m else None

def name_of(cell, whole, what):
    """A name cell: the whole name, or cut with '~' before its id (and a VM's "/vcpuN"),
    beginning as it does."""
    if cell == whole:
        return False
    m = re.fullmatch(r"(.+)~((?:/\S+)? ?\(.*\))", cell)
    assert m, "%s: %r is neither %r nor cut" % (what, cell, whole)
    assert whole.endswith(m.group(2)), "%s: %r lost the id of %r" % (what, cell, whole)
    assert whole.startswith(m.group(1)), "%s: %r is not %r cut" % (what, cell, whole)
    return True

def cut(ns, unit, text):
    """text is ns in unit, cut (not rounded) to its decimals."""
    whole, _, dec = text.partition(".")
    return int(whole + dec) == ns * 10 ** len(dec) // units[unit]

def pct(part, total, text):
    return int(text.replace(".", "")) == part * 10000 // total

def figures(row, name_cols, g, total_ns, total_n, u):
    """The figures of a group row: count, count%, total, time%, min, avg, p50, p99, p99.9, max."""
    f = row[2 + name_cols:].split()
    assert len(f) == 10, row
    assert int(f[0]) == g["count"], (row, g["count"])
    assert pct(g["count"], total_n, f[1]), (row, "count%")
    assert cut(g["total_ns"], u[1], f[2]), (row, "total", g["total_ns"], u[1])
    assert pct(g["total_ns"], total_ns, f[3]), (row, "time%")
    p = g["percentiles_ns"]
    for text, ns in zip(f[4:], (g["min_ns"], g["avg_ns"], p["p50"], p["p99"], p["p99.9"],
                                g["max_ns"])):
        assert cut(ns, u[0], text), (row, text, ns, u[0])

def label(t):
    if t["vm"] is not None:
        return "%s/vcpu%d (pid %d)" % (t["vm"], t["vcpu"], t["pid"])
    if t["vcpu"] is not None:
        return "%d (%d)" % (t["vcpu"], t["pid"])
    return "%s (%d)" % (t["comm"] or "-", t["pid"])

def tasks(name, title):
    lines, d = load(name)
    head, rows, u = table(lines, title)
    total_ns, total_n = d["total_ns"], d["pairs"]
    want = {t["pid"]: t for t in d["vcpus"]}
    # the name column: "  %-*s %9s", the count's title right-aligned
    name_cols = head.index("count") - 7
    seen, cuts = set(), 0
    for r in rows:
        cell = r[2:2 + name_cols].rstrip()
        m = re.search(r"\((?:pid )?(\d+)\)$", cell)
        assert m, "a row without its id: " + r
        t = want[int(m.group(1))]
        cuts += name_of(cell, label(t), name)
        figures(r, name_cols, t, total_ns, total_n, u)
        seen.add(t["pid"])
    assert seen == set(want), (name, seen, set(want))
    # the window table under it: the same names, wider column
    at = lines.index(rows[-1]) + 1
    whead = lines[at]
    assert whead.split()[:2] == head.split()[:2], whead
    # "  %-*s %9s %16s": in guest, then max/window right-aligned
    wcols = whead.index("max/window") - 19
    for r in lines[at + 1:at + 1 + len(rows)]:
        cell = r[2:2 + wcols].rstrip()
        t = want[int(re.search(r"\((?:pid )?(\d+)\)$", cell).group(1))]
        cuts += name_of(cell, label(t), name + " window table")
        if "in guest" in whead:
            gp = r[2 + wcols:].split()[0]
            assert gp == "%.3f%%" % (int(t["in_guest_percent"] * 1000 + 1e-6) / 1000), (r, t)
    return cuts, name_cols

def reasons(name, title):
    lines, d = load(name)
    head, rows, u = table(lines, title)
    name_cols = head.index("count") - 7
    want = {g["code"]: g for g in d["reasons"]}
    cuts = 0
    for r in rows:
        cell = r[2:2 + name_cols].rstrip()
        m = re.search(r"\((0x[0-9a-f]+)\)$", cell)
        assert m, r
        g = want.pop(int(m.group(1), 16))
        cuts += name_of(cell, "%s(0x%x)" % (g["name"], g["code"]), name + " reasons")
        figures(r, name_cols, g, d["total_ns"], d["pairs"], u)
    assert not want, ("reasons without a row", want)
    return cuts

def exits(name, title, key):
    """An exit list: every row's reason whole, its latency under the header's, as the JSON."""
    lines, d = load(name)
    at = [i for i, l in enumerate(lines) if l.startswith(title)]
    assert at, "no list " + title
    head = lines[at[0] + 1]
    end = head.index("latency") + len("latency")
    rows = [l for l in lines[at[0] + 2:] if l.startswith("  ") and
            not l.lstrip().startswith(("why:", "info", "intr_info", "error_code"))]
    rows = rows[:len(d[key])]
    assert len(rows) == len(d[key]) and rows, (name, len(rows), len(d[key]))
    widest = 0
    for r, e in zip(rows, d[key]):
        assert r[:end].endswith(" " + lat(e["latency_ns"])), (r, e["latency_ns"], end)
        assert int(r[28:36]) == e["pid"], (r, e["pid"])   # "  %14s %4u %5s %8d"
        assert e["reason"] in r[:end].split(), (r, e["reason"])
        widest = max(widest, len(e["reason"]))
    # the reason column as wide as the longest reason shown (at least 22)
    assert end == 2 + 14 + 1 + 4 + 1 + 5 + 1 + 8 + 1 + max(widest, 22) + 1 + 10, (head, widest)
    return widest

# 1. KVM: the VM's name cut in the 24 columns, whole in the window table's wider column
cuts, cols = tasks("kvm", "Per vCPU task")
assert cuts == 2 and cols == 24, (cuts, cols)
assert any(l.startswith("  " + MID + "/vcpu1 (pid 4194302) ") for l in open("kvm.txt")), \
    "the whole name in the window table"
assert reasons("kvm", "Exit reasons") >= 3
assert exits("kvm", "Longest exits", "top") == len("vmgexit_ext_guest_request(0x80000012)")
assert exits("kvmthr", "Exits of at least", "over_threshold") > 22

# 2. system calls: the comms cut before their pid, long system call names
cuts, cols = tasks("sys", "Per task")
assert cuts == 2, cuts
reasons("sys", "Per id")
assert exits("sys", "Longest pairs", "top") == len("set_mempolicy_home_node(0x1c2)")
exits("systhr", "Pairs of at least", "over_threshold")

# 3. 24 vCPUs of a VM whose name fits no column: each cut, in both tables, each row its own
cuts, _ = tasks("many", "Per vCPU task")
assert cuts == 48, cuts

# 4. histograms: the columns shown hold the JSON's counts, the total all pCPUs'
for name, ncpus in (("manyhist", 24), ("sixhist", 6), ("sixlog", 6)):
    lines, d = load(name)
    h = d["histogram"]["cpus"]
    assert len(h) == ncpus, len(h)
    head = [l for l in lines if l.startswith("# from")][0].split()[2:]
    shown = [int(c[4:]) for c in head[:-1]]
    assert head[-1] == "total" and shown == [c["cpu"] for c in h[:len(shown)]], head
    note = [l for l in lines if l.startswith("# Columns of")]
    if len(shown) < ncpus:
        assert note == ["# Columns of %d of the %d pCPUs only, to fit 120 columns (the total "
                        "counts every one; --wide shows them)" % (len(shown), ncpus)], note
    else:
        assert not note, note
    rows = {}
    for l in lines[lines.index([l for l in lines if l.startswith("# from")][0]) + 1:]:
        f = re.match(r"(.{12}) (.*)", l)
        if not f or f.group(1).startswith(("over:", "count:", "min:", "avg:", "max:")):
            break
        rows[f.group(1).strip()] = [int(x) for x in f.group(2).split()[:len(shown) + 1]]
    assert rows, name
    for b in range(len(h[0]["counts"])):
        want = [c["counts"][b] for c in h]
        if not sum(want):
            continue
        lo = b * d["histogram"]["bucket_ns"] if not d["histogram"]["log2"] else (1 << b if b else 0)
        got = rows.pop(lat(lo) if lo >= 1000 else "%d ns" % lo)
        assert got == want[:len(shown)] + [sum(want)], (name, b, got, want)
    assert not rows, (name, "rows without counts", rows)
    over = [l for l in lines if l.startswith("over:")][0].split()[1:]
    assert [int(x) for x in over] == [c["overflow"] for c in h][:len(shown)] + \
        [sum(c["overflow"] for c in h)], over
print("names, reasons and histograms fit; figures as the JSON's")
PY

# --wide: every pCPU's column and every name whole
run vmtrace-report --wide --histogram --bucket 100ns --buckets 40 many.vmt
expect_rc 0 "--wide"
grep -q "^# from .* CPU-023 " out.txt || fail "--wide: not every pCPU's column"
grep -q "^# Columns of" out.txt && fail "--wide: columns left out"
[ "$(grep -c "^  $LONG/vcpu[0-9]* (pid 10[0-9][0-9]) " out.txt)" = 48 ] ||
	fail "--wide: names cut: $(grep -m1 'pid 1000' out.txt)"

# A VM map that does not read as man/vmtrace-file.5 lays it out is left out whole, never
# in part (no thread labelled, --vm finds no map), and the recording is read all the same.
# The well-formed map first: tasks 1000 and 1001 (--random on 2 CPUs) are web's vCPUs 0, 1.
map_labels() {	# map_labels KEY=VALUE...: the (pid, vm) of the report's tasks
	args=
	for kv in "$@"; do
		args="$args --meta $kv"
	done
	# shellcheck disable=SC2086
	"$HELPERS/mkvmt" $args --random 2000 2 "$F" map.vmt || fail "mkvmt $*"
	run vmtrace-report --json map.vmt
	expect_rc 0 "a recording whose map is $*"
	json out.txt 'sorted((v["pid"], v.get("vm")) for v in d["vcpus"])'
}
good="vm.count=1 vm.0.name=web vm.0.pid=900 vm.0.vcpus=1000:0,1001:1"
# shellcheck disable=SC2086
[ "$(map_labels $good)" = "[(1000, 'web'), (1001, 'web')]" ] || fail "the well-formed map"
for bad in vm.count=x vm.count=4097 vm.count=2 vm.0.name= vm.0.pid=0 vm.0.pid=2147483648 \
	vm.0.vcpus=1000:0,1000:1 vm.0.vcpus=1000-0 vm.0.vcpus=1000:0, vm.0.vcpus=0:0 \
	vm.0.vcpus=1000:16777216; do
	key=${bad%%=*}
	# shellcheck disable=SC2086
	set -- $(echo "$good" | tr ' ' '\n' | grep -v "^$key=") "$bad"
	[ "$(map_labels "$@")" = "[(1000, None), (1001, None)]" ] ||
		fail "a map with $bad: labels kept"
	run vmtrace-report --vm web map.vmt
	expect_one_line_error vmtrace-report "--vm web: this recording has no VM map"
done
exit 0
