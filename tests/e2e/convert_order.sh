#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-convert writes per-exit rows in exit-time order although, on several CPUs, long
# exits end after shorter ones that began later. Checked against independent answers:
#  - a generated script of 8 migrating tasks on 4 CPUs (long exits, orphans, lost events,
#    an exit open at the end): Python pairs the script's own events (the pairing rules of
#    common/pairing.h) and the CSV and JSON lines must be exactly its rows sorted by exit;
#  - mkvmt --random on 4 CPUs: rows in order, the same multiset as Python's pairing of the
#    per-event rows, the report's pair count and total;
#  - one exit open while more than the hold (2^19 exits, 2^17 with --why) begin: one
#    warning naming the hold, that row late,
#    every other row in order, memory bounded;
#  - CSV formatted by threads is byte for byte the serial writer's, on the files above.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"

python3 - s.txt expected.json <<'PY' || fail "generating the script"
import json, random, sys
random.seed(12)
NCPU, NTASK, PER_TASK = 4, 8, 2500
ev, used = [], set()
cpu = {p: p % NCPU for p in range(NTASK)}

def stamp(ts):                      # unique times: the order never rests on a tie
    while ts in used:
        ts += 1
    used.add(ts)
    return ts

for p in range(NTASK):
    ts = 1_000_000 + p * 13
    for i in range(PER_TASK):
        ts = stamp(ts + random.randrange(100, 3000))
        reason = random.choice([0x72, 0x7b, 0x78, 0x400, 0x60])
        ev.append((ts, "exit", 1000 + p, cpu[p], reason, p))
        lat = random.randrange(200, 2000) if random.random() > 0.03 else \
            random.randrange(50_000, 400_000)
        ts = stamp(ts + lat)
        if random.random() < 0.005:
            continue                # no entry: the task's next exit orphans this one
        if random.random() < 0.1:
            cpu[p] = random.randrange(NCPU)     # the entry on another CPU
        ev.append((ts, "entry", 1000 + p, cpu[p], 0, p))
ev.append((stamp(max(e[0] for e in ev) + 10), "exit", 2000, 3, 0x78, 3))   # open at the end
ev.sort()
gaps = set(random.sample(range(1, len(ev)), 6))     # lost events before these events

# The pairing (common/pairing.h): a task's exit with its next entry; a second exit orphans
# the first; a pair whose exit's or entry's CPU lost events since the exit is dropped.
start, epoch, cpu_epoch, flag = ev[0][0], 0, {}, {}
open_, rows, lines = {}, [], []
for i, (ts, kind, pid, c, reason, vcpu) in enumerate(ev):
    if i in gaps:
        lines.append(f"page {c} missed 3")
        epoch += 1
        cpu_epoch[c] = epoch
        flag[c] = 1
    if kind == "exit":
        lines.append(f"exit {c} {ts} {pid} {reason} {vcpu}")
        open_[pid] = (ts, c, reason, vcpu, epoch)
        continue
    lines.append(f"entry {c} {ts} {pid} {vcpu}")
    if pid not in open_:
        continue
    xts, xc, reason, xvcpu, ep = open_.pop(pid)
    if cpu_epoch.get(xc, 0) > ep or cpu_epoch.get(c, 0) > ep:
        continue
    near = flag.get(xc, 0) | flag.get(c, 0)
    flag[xc] = flag[c] = 0
    rows.append({"start_ns": xts - start, "start_ts_ns": xts, "pcpu": xc, "entry_pcpu": c,
                 "vcpu": xvcpu, "task": pid, "reason_code": reason, "latency_ns": ts - xts,
                 "guest_rip": hex(0xfff0 + xts % 4096), "info1": hex(xts),
                 "near_gap": near})
by_exit = sorted(rows, key=lambda r: r["start_ns"])
assert by_exit != rows, "the script has no overlapping exits: it tests nothing"
assert any(r["near_gap"] for r in rows) and any(r["entry_pcpu"] != r["pcpu"] for r in rows)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
json.dump(by_exit, open(sys.argv[2], "w"))
PY
"$HELPERS/mkvmt" "$F618" mig.vmt <s.txt || fail mkvmt

# the open exit's time, as the report has it
open_at=$(vmtrace-report --json mig.vmt 2>/dev/null | python3 -c 'import json, sys
print("%d.%09d" % divmod(json.load(sys.stdin)["open_exits"][0]["time_ns"], 10**9))')
run vmtrace-convert --csv -o mig.csv mig.vmt
expect_rc 0 "csv"
# six pages flagged with 3 lost events each: the report's warning; the last exit, open at
# the stop, has no row; nothing else
[ "$(unfold err.txt)" = "vmtrace-convert: mig.vmt: 1 exit still open at the stop (no entry came) has no row: open 0 ns, task 2000, from $open_at s; vmtrace-report lists it
vmtrace-convert: warning: mig.vmt: 18 events were lost while recording; figures may be incomplete" ] ||
	fail "messages: $(cat err.txt)"
run vmtrace-convert --jsonl -o mig.jsonl mig.vmt
expect_rc 0 "jsonl"
python3 - mig.csv mig.jsonl expected.json <<'PY' || fail "rows differ from the script's pairs in exit order"
import csv, json, sys
want = json.load(open(sys.argv[3]))
keys = list(want[0])
got_csv = list(csv.DictReader(open(sys.argv[1], newline="")))
got_json = [json.loads(l) for l in open(sys.argv[2])]
for name, got in (("csv", got_csv), ("jsonl", got_json)):
    assert len(got) == len(want), f"{name}: {len(got)} rows, the script makes {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g = {k: (g[k] if isinstance(g[k], str) and g[k].startswith("0x") else int(g[k]))
             for k in keys}
        assert g == w, f"{name} row {i + 1}: {g} != {w}"
print(f"{len(want)} rows in exit order, as the script's own pairing has them")
PY

# Generated at random on 4 CPUs: order, and the rows' multiset against the events.
"$HELPERS/mkvmt" --random 150000 4 "$F618" r4.vmt || fail mkvmt
vmtrace-convert --csv -o r4.csv r4.vmt || fail "csv of r4.vmt"
vmtrace-convert --csv --events -o r4e.csv r4.vmt || fail "event csv of r4.vmt"
vmtrace-report --json r4.vmt >r4.json || fail "report of r4.vmt"
python3 - r4.csv r4e.csv r4.json <<'PY' || fail "random 4-CPU rows"
import csv, json, sys
from collections import Counter
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
starts = [int(r["start_ns"]) for r in rows]
bad = sum(1 for a, b in zip(starts, starts[1:]) if b < a)
assert bad == 0, f"{bad} rows out of start_ns order"
ends = [int(r["start_ns"]) + int(r["latency_ns"]) for r in rows]
assert ends != sorted(ends), "no exit overlaps another: the file tests nothing"
# The rows the events make: each entry that ends a pair (latency_ns set) with its task's
# last exit before it.
last, made = {}, []
for e in csv.DictReader(open(sys.argv[2], newline="")):
    key = e["task"] if e["task"] != "0" else "idle" + e["pcpu"]
    if e["kind"] == "exit":
        last[key] = e
    elif e["latency_ns"]:
        x = last.pop(key)
        assert int(e["time_ns"]) - int(x["time_ns"]) == int(e["latency_ns"])
        made.append((x["time_ns"], x["ts_ns"], x["pcpu"], e["pcpu"], x["vcpu"], x["task"],
                     x["reason_code"], x["reason"], e["latency_ns"], x["rip"], x["info1"],
                     x["info2"]))
    else:
        last.pop(key, None)
cols = ("start_ns", "start_ts_ns", "pcpu", "entry_pcpu", "vcpu", "task", "reason_code",
        "reason", "latency_ns", "guest_rip", "info1", "info2")
got = Counter(tuple(r[c] for c in cols) for r in rows)
assert got == Counter(made), "the rows are not the pairs the events make"
d = json.load(open(sys.argv[3]))
assert len(rows) == d["pairs"], (len(rows), d["pairs"])
assert sum(int(r["latency_ns"]) for r in rows) == d["total_ns"]
print(f"{len(rows)} rows in order, the events' pairs, the report's total")
PY

# One exit open while 600000 others begin and end on another CPU: the hold (2^19 exits)
# fills, that exit's row comes last (late) with one warning; the rest stay in order.
python3 -c '
n = 600000
lines = ["exit 0 1000 500 0x78 0"]
for i in range(n):
    ts = 2000 + i * 1000
    lines += ["exit 1 %d 501 0x72 1" % ts, "entry 1 %d 501 1" % (ts + 700)]
lines.append("entry 0 %d 500 0" % (2000 + n * 1000))
print("\n".join(lines))' >long.txt
"$HELPERS/mkvmt" "$F618" long.vmt <long.txt || fail mkvmt
# (peak memory from the kernel's accounting of the child, in KiB)
python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' vmtrace-convert --csv -o long.csv long.vmt >rss.txt 2>err.txt ||
	fail "csv of long.vmt: $(cat err.txt)"
[ "$(unfold err.txt | grep -c "warning: long.vmt: 1 row written out of exit-time order")" = 1 ] ||
	fail "no single warning for the late row: $(cat err.txt)"
[ "$(unfold err.txt | wc -l)" = 1 ] || fail "more than the warning: $(cat err.txt)"
unfold err.txt | grep -q "its exit stayed open while 524288 later exits began" ||
	fail "the warning does not give the hold: $(cat err.txt)"
# with the why columns a held row is larger and the hold a quarter: the warning says so
vmtrace-convert --csv --why -o why.csv long.vmt 2>err.txt || fail "csv --why of long.vmt"
unfold err.txt | grep -q "1 row written out of exit-time order: its exit stayed open while 131072 later" || fail "the --why warning does not give its hold: $(cat err.txt)"
python3 - long.csv <<'PY' || fail "the late row"
import sys
rows = [l.split(",") for l in open(sys.argv[1], newline="").read().split("\r\n")[1:-1]]
assert len(rows) == 600001, len(rows)
assert rows[-1][5] == "500" and rows[-1][0] == "0", rows[-1]   # task, start_ns
starts = [int(r[0]) for r in rows[:-1]]
assert starts == sorted(starts) and len(set(starts)) == 600000
PY
rss=$(tail -1 rss.txt)
[ "$rss" -lt 160000 ] || fail "peak memory $rss KiB: the hold is not bounded"

# With two CPUs or more, CSV rows are formatted on other cores (common/fmtpool.h): the
# bytes must be the serial writer's (VMTRACE_NO_THREADS), late row and why columns
# (interrupts and switches of mkvmt --context) included.
if [ "$(nproc)" -ge 2 ]; then
	"$HELPERS/mkvmt" --context --random 30000 3 "$F618" ctx.vmt || fail mkvmt
	for f in mig r4 long ctx; do
		for a in --csv "--csv --events" "--csv --why"; do
			# shellcheck disable=SC2086
			vmtrace-convert $a -o t.csv $f.vmt 2>/dev/null ||
				fail "threaded $a of $f.vmt"
			# shellcheck disable=SC2086
			VMTRACE_NO_THREADS=1 vmtrace-convert $a -o s.csv $f.vmt 2>/dev/null ||
				fail "serial $a of $f.vmt"
			cmp -s t.csv s.csv || fail "$f.vmt $a: threaded rows differ from the serial ones"
		done
	done
fi
exit 0
