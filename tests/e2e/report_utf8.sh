#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names in UTF-8 keep the text tables' columns in line: VM names of QEMU's -name ("vm-café",
# "тест", "中文虚拟机", a combining accent, an emoji and a name too long for its column),
# comms of preempting and traced tasks (the kernel's 15 bytes, cut inside a character: '?'), and
# exit reason names with such characters (from a format of the recording's own). Each table
# (per reason, pCPU, vCPU task and task, the windows, where the time went, the culprits, the
# longest exits and --threshold's, --interval's series, --compare, a merge of two files) is
# read by display columns computed with Python's unicodedata (tests/helpers/textcols.py, not
# the C rule): every row's figures end in the columns where the header's titles end and hold
# figures whole, its name cell is the name or the name cut with '~' before its id (never
# inside a character), and every line fits 120 columns.
. "$(dirname "$0")/lib.sh"

# The recording's own kvm_exit format, three SVM reasons renamed: wide, accented, combining
cp -r "$DATA/formats/linux-6.18-x86_64" fmt || fail "copy the formats"
python3 - fmt/kvm/kvm_exit/format <<'PY' || fail "rename the reasons"
import sys
s = open(sys.argv[1], encoding="utf-8").read()
for a, b in (('"cpuid" }', '"cpuid-\u4e2d\u6587" }'), ('"io" }', '"io-caf\u00e9" }'),
             ('"hlt" }', '"hlt-e\u0301" }')):
    assert s.count(a) == 1, a
    s = s.replace(a, b)
open(sys.argv[1], "w", encoding="utf-8").write(s)
PY

# kvm.vmt: five VMs, vCPU threads preempted now and then by tasks named in UTF-8 (each comm
# is cut at 15 bytes as the kernel's is: "тестовый" and four emoji end inside a character)
cat >gen.py <<'PY'
import sys
seed = int(sys.argv[1])
out = sys.stdout.buffer
def w(s):
    out.write(s.encode("utf-8") + b"\n")
# vm-café, тест, 中文虚拟机, e and a combining acute, an emoji and a name too long
vms = [("vm-caf\u00e9", 900, [(1000, 0), (1001, 1)]),
       ("\u0442\u0435\u0441\u0442", 901, [(2000, 0)]),
       ("\u4e2d\u6587\u865a\u62df\u673a", 902, [(3000, 0)]),
       ("e\u0301mu\u0308", 903, [(4000, 0)]),
       ("\U0001f600-emoji-and-\u4e2d\u6587-name-long-enough-to-be-cut-\u4e2d\u6587", 904,
        [(5000, 0), (5001, 1)])]
w("cpus 0-1")
w("context sched:sched_switch,sched:sched_waking")
w("meta vm.count %d" % len(vms))
for i, (n, pid, vc) in enumerate(vms):
    w("meta vm.%d.name %s" % (i, n))
    w("meta vm.%d.pid %d" % (i, pid))
    w("meta vm.%d.vcpus %s" % (i, ",".join("%d:%d" % t for t in vc)))
# 中文进程, тестовый (16 bytes), café-worker, four emoji (16 bytes)
hogs = [(7001, "\u4e2d\u6587\u8fdb\u7a0b"),
        (7002, "\u0442\u0435\u0441\u0442\u043e\u0432\u044b\u0439"),
        (7003, "caf\u00e9-worker"), (7004, "\U0001f600" * 4)]
tasks = [(pid, v) for _, _, vc in vms for pid, v in vc]
ts = 1000
for k in range(120):
    for j, (pid, v) in enumerate(tasks):
        cpu = j % 2
        w("exit %d %d %d %#x %d" % (cpu, ts, pid, (0x72, 0x7b, 0x78, 0x402)[(k + j) % 4], v))
        lat = 200 + (k * 37 + pid * seed) % 5000
        if k % 10 == j % 10:
            hp, hc = hogs[(k // 10) % 4]
            w("ctx %d %d sched:sched_switch 0 %d prev_comm=vcpu prev_pid=%d prev_state=0 "
              "next_comm=%s next_pid=%d" % (cpu, ts + 50, pid, pid, hc, hp))
            lat += 20000 + j * 1000
            w("ctx %d %d sched:sched_switch 0 %d prev_comm=%s prev_pid=%d prev_state=0 "
              "next_comm=vcpu next_pid=%d" % (cpu, ts + lat - 50, hp, hc, hp, pid))
        ts += lat
        w("entry %d %d %d %d" % (cpu, ts, pid, v))
        ts += 300
PY
python3 gen.py 1 | "$HELPERS/mkvmt" fmt kvm.vmt || fail "mkvmt kvm.vmt"
python3 gen.py 3 | "$HELPERS/mkvmt" fmt kvm2.vmt || fail "mkvmt kvm2.vmt"

# sys.vmt: system calls of tasks without a vCPU, named by sched_switch in UTF-8
python3 - <<'PY' | "$HELPERS/mkvmt" fmt sys.vmt || fail "mkvmt sys.vmt"
import sys
w = lambda s: sys.stdout.buffer.write(s.encode("utf-8") + b"\n")
w("events raw_syscalls:sys_enter raw_syscalls:sys_exit")
w("meta kernel.machine x86_64")
w("cpus 0")
w("context sched:sched_switch")
# тестовый, 中文进程名 (15 bytes), café, four emoji, a combining acute
tasks = [(4100001, "\u0442\u0435\u0441\u0442\u043e\u0432\u044b\u0439"),
         (4100002, "\u4e2d\u6587\u8fdb\u7a0b\u540d"),
         (77, "caf\u00e9"), (78, "\U0001f600" * 4), (79, "ab\u0301c")]
ts = 1000
for pid, comm in tasks:
    w("ctx 0 %d sched:sched_switch 0 %d prev_comm=x prev_pid=5 prev_state=1 next_comm=%s "
      "next_pid=%d" % (ts, pid, comm, pid))
    ts += 10
for k in range(500):
    pid = tasks[k % len(tasks)][0]
    w("exit 0 %d %d %d" % (ts, pid, (450, 0, 1, 39)[k % 4]))
    ts += 50 + (k * 131) % 20000
    w("entry 0 %d %d" % (ts, pid))
    ts += 300
PY

# the text views, each into NAME.txt
view() {
	name=$1
	shift
	vmtrace-report "$@" >"$name.txt" 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "vmtrace-report $*"; }
	widths_ok "$name.txt" "$name.err" || fail "vmtrace-report $*: lines over 120 columns"
}
view kvm --top 20 kvm.vmt
view kvmthr --threshold 25us kvm.vmt
view kvmiv --interval 1ms kvm.vmt
view sys --top 20 sys.vmt
view cmp --compare kvm.vmt kvm2.vmt
view merge kvm.vmt kvm2.vmt

PYTHONPATH="$top_srcdir/tests/helpers" python3 - <<'PY' || fail "the tables' columns"
import re
from textcols import cells, check_row, cols, read_lines, text

# The names given, as the kernel and mkvmt keep a comm: its first 15 bytes; a byte of no
# valid sequence (the cut character's first) shown as '?' (common/ctxevent.c).
def comm(s):
    cut = s.encode("utf-8")[:15].decode("utf-8", "surrogateescape")
    return "".join("?" if "\udc80" <= c <= "\udcff" else c for c in cut)

VMS = {1000: "vm-caf\u00e9/vcpu0", 1001: "vm-caf\u00e9/vcpu1",
       2000: "\u0442\u0435\u0441\u0442/vcpu0",
       3000: "\u4e2d\u6587\u865a\u62df\u673a/vcpu0", 4000: "e\u0301mu\u0308/vcpu0",
       5000: "\U0001f600-emoji-and-\u4e2d\u6587-name-long-enough-to-be-cut-\u4e2d\u6587/vcpu0",
       5001: "\U0001f600-emoji-and-\u4e2d\u6587-name-long-enough-to-be-cut-\u4e2d\u6587/vcpu1"}
VCPU = {pid: "%s (pid %d)" % (n, pid) for pid, n in VMS.items()}
HOGS = {7001: comm("\u4e2d\u6587\u8fdb\u7a0b"),
        7002: comm("\u0442\u0435\u0441\u0442\u043e\u0432\u044b\u0439"),
        7003: comm("caf\u00e9-worker"), 7004: comm("\U0001f600" * 4)}
TASKS = {pid: "%s (%d)" % (comm(n), pid) for pid, n in (
    (4100001, "\u0442\u0435\u0441\u0442\u043e\u0432\u044b\u0439"),
    (4100002, "\u4e2d\u6587\u8fdb\u7a0b\u540d"),
    (77, "caf\u00e9"), (78, "\U0001f600" * 4), (79, "ab\u0301c"))}
REASONS = {"cpuid-\u4e2d\u6587(0x72)", "io-caf\u00e9(0x7b)", "hlt-e\u0301(0x78)",
           "avic_unaccelerated_access(0x402)"}
assert comm("\u0442\u0435\u0441\u0442\u043e\u0432\u044b\u0439").endswith("\u044b?")   # cut in "й"

def rows_of(lines, title, rowpat=None):
    """The header and the rows of the table after the line starting with title."""
    at = [i for i, l in enumerate(lines) if l.startswith(title)]
    assert at, "no table " + title
    head, rows = lines[at[0] + 1], []
    for row in lines[at[0] + 2:]:
        if rowpat and re.match(rowpat, row):
            rows.append(row)
        elif rowpat and row.startswith("   "):
            continue        # an exit's why or its fields' next line
        elif not row.startswith("  ") or row.startswith("  (") or rowpat or \
                row.split()[:2] == head.split()[:2]:    # the window table's header
            break
        else:
            rows.append(row)
    assert rows, "no rows in " + title
    return head, rows

def table(lines, title, titles, first_w, names, name_at=2, rowpat=None):
    """Every row of a table checked; returns the cut names and the rows."""
    head, rows = rows_of(lines, title, rowpat)
    return sum(check_row(r, head, titles, first_w, name_at, names, title) for r in rows), len(rows)

GROUP = ["count", "count%", "total", "time%", "min", "avg", "p50", "p99", "p99.9", "max"]
EXIT = r"^ +[0-9]+\.[0-9]{9} "
REASON_AT = 2 + 14 + 1 + 4 + 1 + 5 + 1 + 8 + 1     # "  %14s %4u %5s %8d "

# kvm: the VMs' vCPUs, the reasons, the culprits
k = read_lines("kvm.txt")
table(k, "Exit reasons", GROUP, 10, REASONS)
table(k, "Per pCPU", GROUP, 10, {"0", "1"})
cuts, n = table(k, "Per vCPU task", GROUP, 10, set(VCPU.values()))
assert n == 7 and cuts == 3, (n, cuts)      # the Chinese and the emoji VM's names cut
wat = [i for i, l in enumerate(k) if "window starts at" in l][0]
cuts, n = table(k, k[wat - 1], ["in guest", "max/window", "window starts at"], 10,
                set(VCPU.values()))
assert n == 7 and cuts == 0, (n, cuts)       # the wider column: every name whole
table(k, "Where the out-of-guest time went",
      ["total", "kvm", "user", "preempt", "blocked", "wakeup", "irq", "softirq", "nmi",
       "incompl.", "unknown"], 11, REASONS | {"all"})
cuts, n = table(k, "Culprits", ["pid", "exits", "total", "max"], 9, set(HOGS.values()), 13)
assert n == 4, n
# the exit lists: the reason between the pid and the latency
for name, title in (("kvm", "Longest exits"), ("kvmthr", "Exits of at least")):
    _, n = table(read_lines(name + ".txt"), title, ["latency"], 11, REASONS, REASON_AT, EXIT)
    assert n >= 10, (name, n)
# --interval: the task column, 18 wide, after the vCPU's
lines = read_lines("kvmiv.txt")
head, rows = rows_of(lines, "  out%: of the time", EXIT)
tcol = head.index("task")
cuts = sum(check_row(r, head, ["exits", "out", "out%", "max", "p99", "max/window"], 11, tcol,
                     {"%s (%d)" % (n, pid) for pid, n in VMS.items()}, "--interval")
           for r in rows)
assert len(rows) >= 7 and cuts, (len(rows), cuts)

# sys: tasks named by their comms, one cut inside "й", another inside an emoji
s = read_lines("sys.txt")
cuts, n = table(s, "Per task", GROUP, 10, set(TASKS.values()))
assert n == 5, n
IDS = {"set_mempolicy_home_node(0x1c2)", "read(0x0)", "write(0x1)", "getpid(0x27)"}
table(s, "Per id", GROUP, 10, IDS)
wat = [i for i, l in enumerate(s) if "window starts at" in l][0]
_, n = table(s, s[wat - 1], ["max/window", "window starts at"], 17, set(TASKS.values()))
assert n == 5, n
table(s, "Longest pairs", ["latency"], 11, IDS, REASON_AT, EXIT)

# --compare: each reason's name on its "before" row (or on a line of its own when longer than
# the column), then "after" and "change" rows, the last with the KS test's columns
c = read_lines("cmp.txt")
hi = [i for i, l in enumerate(c) if l.startswith("  reason ")][0]
CMP = {"all", "cpuid-\u4e2d\u6587", "io-caf\u00e9", "hlt-e\u0301"}
titles = ["count", "rate/s", "p50", "p99", "p99.9", "max", "window"]
n = 0
for l in c[hi + 1:]:
    if not l.startswith("  "):
        break
    side = re.search(r" (before|after|change) ", text(cells(l)))
    if not side:
        assert l == "  avic_unaccelerated_access", l
        continue
    check_row(l, c[hi], titles + (["KS D", "p"] if side.group(1) == "change" else []), 10, 2,
              CMP | {""} if side.group(1) == "before" else set(), "--compare", 7,
              r" (before|after |change)")
    n += 1
assert n == 15, n
# a merge of two files: the reasons, then the recordings
m = read_lines("merge.txt")
titles = ["count", "rate/s", "p50", "p90", "p99", "p99.9", "p99.99", "max", "window"]
table(m, "All recordings", titles, 10, CMP | {"avic_unaccelerated_access"})
table(m, "Each recording", titles, 10, {"[1]", "[2]"})
print("columns in line")
PY
exit 0
