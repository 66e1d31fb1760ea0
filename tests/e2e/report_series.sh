#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The time series (vmtrace-report --interval, vmtrace-convert --series) against two
# independent computations: the report's own per-vCPU figures (exits and out_ns summed over
# the intervals give pairs and total_ns, the largest max_ns and max_window_ns give max_ns
# and max_window_sum_ns), and a Python recount of vmtrace-convert --csv's exit rows binned
# by start_ns: counts, sums and maxima exactly, p99 by nearest rank (exact up to 1024 exits
# in an interval, else within the histogram's 0.8 %), and each interval's worst sliding
# window recomputed from the exits' start and latency. The JSON series, the CSV and the
# JSON lines must hold the same rows; the text table one line per row within 120 columns.
. "$(dirname "$0")/lib.sh"

SYS="--pair raw_syscalls:sys_enter,raw_syscalls:sys_exit"
T="$DATA/tracedat"

cat >check.py <<'PY'
import csv, json, math, sys
from fractions import Fraction   # exact ranks
from collections import defaultdict, deque

report, exits_csv, series_csv, series_jsonl, interval, window, tol = sys.argv[1:8]
interval, window = int(interval), int(window)
# tol: 0 for ns clocks; 1 when each exit's latency is rounded to ns on its own (x86-tsc):
# the series sums exits rounded one by one, the report's totals round their sum once
tol = int(tol)
r = json.load(open(report))
series = r["series"]
assert series, "no series"

def fail(msg):
    sys.exit("FAIL: " + msg)

# Same rows in the three outputs (CSV cells are text: compare as JSON would have them).
def as_json(row):
    return {k: (None if v == "" else int(v)) for k, v in row.items()}
rows_csv = [as_json(x) for x in csv.DictReader(open(series_csv, newline=""))]
rows_jsonl = [json.loads(x) for x in open(series_jsonl)]
if rows_csv != series:
    fail("vmtrace-convert --series --csv differs from the report's series")
if rows_jsonl != series:
    fail("vmtrace-convert --series --jsonl differs from the report's series")

# Dense and ordered: every task in every interval, intervals from 0, each interval_ns long.
tasks = sorted({(x["vcpu"] is None, x["vcpu"] or 0, x["pid"]) for x in series})
n = len(series) // len(tasks)
if n * len(tasks) != len(series):
    fail("not every task has a row in every interval")
for i, x in enumerate(series):
    k, t = divmod(i, len(tasks))
    if x["start_ns"] != k * interval or x["end_ns"] != (k + 1) * interval:
        fail(f"row {i}: interval {x['start_ns']}..{x['end_ns']}, expected {k * interval}")
    if (x["vcpu"] is None, x["vcpu"] or 0, x["pid"]) != tasks[t]:
        fail(f"row {i}: task order")
    if x["exits"] == 0 and (x["max_ns"] is not None or x["p99_ns"] is not None):
        fail(f"row {i}: figures without exits")
    if x["out_ns"] > interval:
        fail(f"row {i}: out_ns {x['out_ns']} exceeds the interval {interval}")

# The report's own figures.
by_pid = defaultdict(list)
for x in series:
    by_pid[x["pid"]].append(x)
for v in r["vcpus"]:
    rows = by_pid[v["pid"]]
    nz = [x for x in rows if x["exits"]]
    if sum(x["exits"] for x in rows) != v["pairs"]:
        fail(f"pid {v['pid']}: exits sum to {sum(x['exits'] for x in rows)}, pairs {v['pairs']}")
    if abs(sum(x["out_ns"] for x in rows) - v["total_ns"]) > tol * v["pairs"]:
        fail(f"pid {v['pid']}: out_ns sum {sum(x['out_ns'] for x in rows)}, total_ns {v['total_ns']}")
    if max(x["max_ns"] for x in nz) != v["max_ns"]:
        fail(f"pid {v['pid']}: largest max_ns {max(x['max_ns'] for x in nz)}, max_ns {v['max_ns']}")
    if max(x["max_window_ns"] for x in nz) != v["max_window_sum_ns"]:
        fail(f"pid {v['pid']}: largest max_window_ns, max_window_sum_ns {v['max_window_sum_ns']}")
if set(by_pid) != {v["pid"] for v in r["vcpus"]}:
    fail("the series' tasks are not the report's")
if abs(sum(x["out_ns"] for x in series) - r["total_ns"]) > tol * r["pairs"]:
    fail("out_ns over everything differs from total_ns")

# The recount from the exit rows.
got = defaultdict(list)
for e in csv.DictReader(open(exits_csv, newline="")):
    got[(int(e["start_ns"]) // interval, int(e["task"]))].append(
        (int(e["start_ns"]), int(e["latency_ns"])))
if max(k for k, _ in got) + 1 != n:
    fail(f"{n} intervals, the exits span {max(k for k, _ in got) + 1}")

def worst_windows(exits):
    """Per exit, the largest out-of-guest time in the window ending at its end."""
    ring, total, last_end, out = deque(), 0, 0, []
    for start, lat in exits:
        end = start + lat
        start = max(start, last_end)
        end = max(end, start)
        last_end = end
        ring.append((start, end))
        total += end - start
        lo = end - window
        while ring and ring[0][1] <= lo:
            s0, e0 = ring.popleft()
            total -= e0 - s0
        out.append(total - max(0, lo - ring[0][0]))
    return out

per_task = defaultdict(list)
for (k, pid), ex in got.items():
    per_task[pid] += [(s, l, k) for s, l in ex]
win = {}
for pid, ex in per_task.items():
    ex.sort()
    for (s, l, k), w in zip(ex, worst_windows([(s, l) for s, l, _ in ex])):
        win[(k, pid)] = max(win.get((k, pid), 0), w)

# out_ns: each exit's time split at the intervals' edges
inside = defaultdict(int)
for pid, ex in per_task.items():
    for s, l, _ in ex:
        k = s // interval
        while s + l > k * interval:
            lo, hi = max(s, k * interval), min(s + l, (k + 1) * interval)
            inside[(k, pid)] += max(0, hi - lo)
            k += 1

# seen_ns: the part of the interval from the task's first exit to the end of its last
span = {pid: (min(s for s, _, _ in ex), max(s + l for s, l, _ in ex)) for pid, ex in per_task.items()}

checked_exact = checked_hist = 0
for x in series:
    key = (x["start_ns"] // interval, x["pid"])
    lo, hi = span[x["pid"]]
    seen = max(0, min(hi, x["end_ns"]) - max(lo, x["start_ns"]))
    if abs(x["seen_ns"] - seen) > tol * 2:
        fail(f"{key}: seen_ns {x['seen_ns']}, the task's exits span {seen} of it")
    if x["out_ns"] > x["seen_ns"] + tol * (x["exits"] + 2):
        fail(f"{key}: out_ns {x['out_ns']} exceeds seen_ns {x['seen_ns']}")
    lat = sorted(l for _, l in got.get(key, []))
    if x["exits"] != len(lat):
        fail(f"{key}: {x['exits']} exits, the CSV has {len(lat)}")
    if abs(x["out_ns"] - inside[key]) > tol * (len(lat) + 2):
        fail(f"{key}: out_ns {x['out_ns']}, the CSV's exits inside it {inside[key]}")
    if not lat:
        continue
    if x["max_ns"] != lat[-1]:
        fail(f"{key}: max_ns {x['max_ns']}, the CSV {lat[-1]}")
    rank = min(max(math.ceil(Fraction(99, 100) * len(lat)), 1), len(lat))
    p99 = lat[rank - 1]
    if len(lat) <= 1024:
        checked_exact += 1
        if x["p99_ns"] != p99:
            fail(f"{key}: p99_ns {x['p99_ns']}, nearest rank {p99}")
    else:
        checked_hist += 1
        if abs(x["p99_ns"] - p99) > 0.008 * p99 + tol:
            fail(f"{key}: p99_ns {x['p99_ns']}, nearest rank {p99} (beyond 0.8 %)")
    if tol == 0 and x["max_window_ns"] != win[key]:
        fail(f"{key}: max_window_ns {x['max_window_ns']}, recomputed {win[key]}")
print(f"{len(series)} rows, {len(tasks)} tasks, {n} intervals; p99 exact in {checked_exact},"
      f" from the histogram in {checked_hist}")
PY

# check LABEL INTERVAL_NS TOL [OPTIONS...] FILE: the report, the exit rows, the series rows.
check() {
	label=$1 iv=$2 tol=$3
	shift 3
	vmtrace-report --json --interval "${iv}ns" "$@" >r.json || fail "$label: report"
	vmtrace-convert --csv "$@" >x.csv || fail "$label: convert --csv"
	vmtrace-convert --series="${iv}ns" --csv "$@" >s.csv || fail "$label: --series --csv"
	vmtrace-convert --series="${iv}ns" --jsonl "$@" >s.jsonl || fail "$label: --series --jsonl"
	python3 check.py r.json x.csv s.csv s.jsonl "$iv" 1000000 "$tol" >py.out 2>&1 ||
		fail "$label: $(cat py.out)"
	echo "$label: $(cat py.out)"
	# the table: one line per row, within 120 columns
	vmtrace-report --interval "${iv}ns" "$@" >t.txt || fail "$label: text report"
	rows=$(sed -n '/^Time series/,$p' t.txt | tail -n +4 | wc -l)
	[ "$rows" = "$(json r.json 'len(d["series"])')" ] || fail "$label: $rows table lines"
	[ "$(sed -n '/^Time series/,$p' t.txt | awk '{ if (length($0) > m) m = length($0) } END { print m }')" -le 120 ] ||
		fail "$label: the table is wider than 120 columns"
	# out%: of seen_ns, cut to two decimals; "-" where the task was not traced
	sed -n '/^Time series/,$p' t.txt | tail -n +4 | python3 -c '
import json, sys
rows = json.load(open("r.json"))["series"]
for line, x in zip(sys.stdin, rows):
    got = line[70:76].strip()  # its column (another pair leaves the vcpu one empty)
    want = "-" if not x["seen_ns"] else "%.2f" % (x["out_ns"] * 10000 // x["seen_ns"] / 100)
    if got != want:
        sys.exit(f"{x}: out% {got}, expected {want}")' || fail "$label: out% of the table"
}

check "kvm 100ms" 100000000 0 "$DATA/sample-kvm.vmt"
check "kvm 7ms" 7000000 0 "$DATA/sample-kvm.vmt"
check "kvm 1s" 1000000000 0 "$DATA/sample-kvm.vmt"
check "kvm 1ms, hlt and io" 1000000 0 --reason hlt,io "$DATA/sample-kvm.vmt"
check "kvm 300ms from 0.5s" 300000000 0 --from 0.5s --to 1.7s "$DATA/sample-kvm.vmt"
check "syscalls 50ms, 3 tasks" 50000000 0 "$DATA/sample-syscalls.vmt"
# the table's words follow the pair
vmtrace-report --interval 50ms "$DATA/sample-syscalls.vmt" | sed -n '/^Time series/,$p' >w.txt ||
	fail "syscalls table"
grep -q "from the task's first begin to its last end):$" w.txt &&
	grep -q "^  *start (s)  *end (s)  *pid  *pairs  *out" w.txt &&
	! grep -q -i "exit\|entry\|vcpu" w.txt ||
	{ cat w.txt; fail "KVM words in a syscall pair's time series"; }
vmtrace-report --interval 1s "$DATA/sample-kvm.vmt" | grep -q "first exit to its last entry):$" ||
	fail "no KVM words in the KVM sample's time series"
# A recording with context events names its tasks: "comm (pid)" in the table, as in the
# report's other tables (the comm cut to fit the column), each row's name the one the JSON
# gives its pid, the row's figures still in their columns and the line within 120.
vmtrace-report --json --interval 500ms "$DATA/why/sample/kvm.vmt" >r.json || fail "why sample"
vmtrace-report --interval 500ms "$DATA/why/sample/kvm.vmt" | sed -n '/^Time series/,$p' >n.txt ||
	fail "why sample's table"
python3 - n.txt r.json <<'PY' || { cat n.txt; fail "the tasks' names in the time series"; }
import json, sys
d = json.load(open(sys.argv[2]))
comm = {t["pid"]: t["comm"] for t in d["vcpus"]}
lines = open(sys.argv[1]).read().split("\n")[2:-1]
assert lines[0][39:57].rstrip() == "task", lines[0]
lines = lines[1:]
assert len(lines) == len(d["series"]) > 0, (len(lines), len(d["series"]))
for line, x in zip(lines, d["series"]):
    pid, name = x["pid"], comm.get(x["pid"])
    assert name, "the sample's vCPU thread %d is not named in the JSON" % pid
    want = "%s (%d)" % (name[:18 - len(" (%d)" % pid)], pid)
    assert line[39:57].rstrip() == want, (line, want)
    assert int(line[57:68]) == x["exits"], (line, x)
    assert len(line) <= 120, line
print(len(lines), "rows named")
PY
check "trace.dat 20ms" 20000000 0 "$T/kvm.v7zstd.dat"
check "x86-tsc trace.dat 1ms" 1000000 1 $SYS "$T/tsc2nsec.dat"

# Without a length, 100 to 1000 intervals of 1, 2 or 5 times a power of ten ns.
for f in "$DATA/sample-kvm.vmt" "$DATA/small-syscalls.vmt" "$T/kvm.v6.dat"; do
	vmtrace-convert --series --csv "$f" >auto.csv || fail "$f: --series"
	python3 - auto.csv <<'PY' || fail "$f: automatic interval"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
iv = int(rows[0]["end_ns"]) - int(rows[0]["start_ns"])
n = len({r["start_ns"] for r in rows})
digits = str(iv).rstrip("0")
assert digits in ("1", "2", "5") and iv >= 1000, f"interval {iv}"
assert 100 <= n <= 1000, f"{n} intervals of {iv} ns"
PY
done

# Usage errors: no zero interval, no series in the original four lines or binary outputs.
run vmtrace-report --interval 0 "$DATA/sample-kvm.vmt"
expect_rc 64 "--interval 0"
run vmtrace-report --legacy --interval 1s "$DATA/sample-kvm.vmt"
expect_rc 64 "--legacy --interval"
run vmtrace-convert --series --events --csv "$DATA/sample-kvm.vmt"
expect_rc 64 "--series --events"
run vmtrace-convert --series=1s --legacy -o x.bin "$DATA/sample-kvm.vmt"
expect_rc 64 "--series --legacy"
# an empty series says why, as the exit rows do (it said nothing)
# (messages unfolded first: a long path folds them at 120 columns)
vmtrace-convert --csv "$DATA/tracedat/context.dat" 2>rows.err >/dev/null
vmtrace-convert --csv --series "$DATA/tracedat/context.dat" 2>series.err >/dev/null
unfold rows.err | grep -v warning >why.rows
unfold series.err | grep -v warning >why.series
grep -q "not one kvm:kvm_exit event in the file" why.rows || fail "the rows' explanation"
cmp why.rows why.series || fail "--series on a recording without exits: $(cat why.series)"
# an interval the span cannot hold is an option value the input does not fit (README's
# exit statuses: 64), refused before any output, as report --interval's below
run vmtrace-convert --csv --series=1ns "$DATA/sample-kvm.vmt"
expect_rc 64 "--series=1ns"
expect_one_line_error vmtrace-convert "too many rows"
run vmtrace-convert --csv --series=1ns -o never.csv "$DATA/sample-kvm.vmt"
expect_rc 64 "--series=1ns -o never.csv"
[ ! -e never.csv ] || fail "--series=1ns: an output file was made"
[ ! -s out.txt ] || fail "rows written before the error"

# The rows stay within the suite's 64 MB (4 M rows once took 298 MB, and --interval 1ns
# allocated them before it was refused): an interval too short for the span is refused
# before the pass, naming the shortest that fits, which then runs; peak memory measured
# by the kernel (the children's maximum resident set).
run vmtrace-report --interval 1ns "$DATA/sample-kvm.vmt"
expect_rc 64 "--interval 1ns"
least=$(unfold err.txt | sed -n 's/.*: --interval 1 ns: more than the 262144 rows a time series holds over the recording.s span: choose at least \([0-9]*\) ns (a row per interval and vCPU task: with N tasks, N times that)$/\1/p')
[ -n "$least" ] || { cat err.txt; fail "--interval 1ns: the message"; }
# AddressSanitizer's shadow and quarantine add to every allocation: the bound is the plain
# build's (the rest is checked in both)
asan=no
if ldd "$(command -v vmtrace-report)" | grep -q libasan; then
	asan=yes
	skip_part "the memory bound (built with AddressSanitizer)"
fi
python3 - "$DATA/sample-kvm.vmt" "$least" "$asan" <<'PY' || fail "the shortest interval that fits"
import json, resource, subprocess, sys
path, least, asan = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "yes"
for prog in (["vmtrace-report", "--json", "--interval", "%dns" % least],
             ["vmtrace-convert", "--csv", "--series=%dns" % least]):
    p = subprocess.run(prog + [path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert p.returncode == 0, (prog, p.stderr)
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
assert asan or peak_kb < 64 * 1024, "peak %d KB" % peak_kb
# one interval shorter is refused: the bound is the rows', 2^18
p = subprocess.run(["vmtrace-report", "--interval", "%dns" % (least - 1), path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
assert p.returncode == 64, p
# the rows: one task, as many as the intervals over the span, never past the bound
d = json.loads(subprocess.run(["vmtrace-report", "--json", "--interval", "%dns" % least, path],
                              capture_output=True).stdout)
n = len(d["series"]["rows"]) if isinstance(d["series"], dict) else len(d["series"])
assert 0 < n <= 1 << 18, n
PY
finish
