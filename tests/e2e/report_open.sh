#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exits still open at the stop (an exit whose task never entered again): listed under
# the orphans' line and in the JSON's open_exits, each with the time it had been open up to
# the recording's last record and, with context events, its causes so far; in no latency
# figure. Generated recordings, recounted here from their scripts: four vCPU tasks on two
# CPUs, each left open at its own time (two on a CPU that then lost events), in many
# chunks so that the sliced report (common/slicepass.c) joins them across slices; three
# tasks with context events (asleep never woken, preempted by a hog, woken and waiting).
# A file cut short: open at its end, their entries maybe in what was not written. Long
# names cut within 120 columns, whole with --wide.
# The real sample with context events: its two open exits recounted from
# vmtrace-convert --events and from the pages' own last record (tests/helpers/vmtedit.py).
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# four tasks, 40 rounds of exits 1 us long every 10 us; then each task's last exit never
# entered, at 500, 520, 540, 560 us; CPU 1 loses events after the third (its two open
# exits may have lost their entries); other records on both CPUs until 900 us
python3 - >plain.txt <<'PY'
print("cpus 1,2")
print("stats 1 0 0")
print("stats 2 0 0")
tasks = [(100, 0, 1), (200, 1, 2), (300, 2, 1), (400, 3, 2)]  # pid, vcpu, cpu
for cpu in (1, 2):
    n = 0
    for r in range(40):
        for pid, vcpu, c in tasks:
            if c != cpu:
                continue
            ts = 1000 + r * 10000 + (pid // 100) * 1000
            print(f"exit {cpu} {ts} {pid} 0x{0x78 if pid % 200 else 0x1e:x} {vcpu}")
            print(f"entry {cpu} {ts + 1000 + pid} {pid} {vcpu}")
            n += 1
            if n % 5 == 0:
                print(f"chunk {cpu}")
    for k, (pid, vcpu, c) in enumerate(tasks):
        if c == cpu:
            print(f"exit {cpu} {500000 + 20000 * k} {pid} 0x{0x30 + k:x} {vcpu}")
            if k == 2:
                print(f"page {cpu} missed 7")
    for ts in range(600000, 900001, 50000):
        print(f"other {cpu} {ts + cpu}")
        print(f"chunk {cpu}")
PY
"$HELPERS/mkvmt" "$FMT" plain.vmt <plain.txt || fail "mkvmt plain"
vmtrace-report --jobs 1 --json plain.vmt >plain.json 2>/dev/null || fail "--json"
vmtrace-report --jobs 1 plain.vmt >plain.out 2>/dev/null || fail "text"
widths_ok plain.out || fail "lines over 120 columns"

# the recount: pairs, the open exits (every task's last exit), the end (the last record)
python3 - plain.txt plain.json plain.out <<'PY' || fail "plain: open exits differ from a recount"
import json, sys
d = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read().splitlines()
opened, lats, lost, until = {}, [], {}, 0
for f in (l.split() for l in open(sys.argv[1])):
    if f[0] in ("exit", "entry", "other"):
        until = max(until, int(f[2]))
    if f[0] == "exit":
        opened[int(f[3])] = (int(f[1]), int(f[2]), int(f[4], 16), int(f[5]))
        lost[int(f[3])] = False
    elif f[0] == "entry":
        lats.append(int(f[2]) - opened.pop(int(f[3]))[1])
    elif f[0] == "page" and "missed" in f:
        for pid, o in opened.items():
            lost[pid] |= o[0] == int(f[1])
want = sorted(((until - ts, pid, cpu, code, vcpu, lost[pid])
               for pid, (cpu, ts, code, vcpu) in opened.items()), reverse=True)
got = [(o["open_ns"], o["pid"], o["cpu"], o["code"], o["vcpu"], o["lost_since"])
       for o in d["open_exits"]]
assert got == want, (got, want)
assert d["open_at_stop"] == 4 and d["orphans"] == 4, d["orphans"]
# time_ns counts from the recording's start as the longest exits' do
off = {t["ts"] - t["time_ns"] for t in d["top"]} | {o["ts"] - o["time_ns"]
                                                    for o in d["open_exits"]}
assert len(off) == 1, off
assert {o["ts"] for o in d["open_exits"]} == {opened[p][1] for p in opened}
assert d["open_until_ns"] == until - off.pop(), d["open_until_ns"]
assert all(o["why"] is None and o["vm"] is None for o in d["open_exits"])
# no latency of theirs: the figures are the pairs' alone
assert d["pairs"] == len(lats) == 160 and d["total_ns"] == sum(lats), d["total_ns"]
assert d["latency_ns"]["max"] == max(lats) and sum(r["count"] for r in d["reasons"]) == 160
assert not {t["ts"] for t in d["top"]} & {o["ts"] for o in d["open_exits"]}
# the text: three rows longest first, the fourth counted; the one on the lossy CPU says so
i = next(k for k, l in enumerate(text) if l.startswith("Orphan events"))
assert text[i + 1].startswith("  Open at stop, not entered by the last event at "), text[i + 1]
rows = [l for l in text[i + 2:i + 9] if l.startswith("    ") and not l.startswith("     ")]
assert [r.split()[0:2] for r in rows[:3]] == [[str(w[4]), f"({w[1]})"] for w in want[:3]], rows
assert rows[3] == "    and 1 more (--json lists them all: open_exits)", rows[3]
assert sum(" its pCPU lost events since" in l for l in text) == 2
# for vmtrace-convert's note below: how many, and the longest's task (the script's)
open("open.want", "w").write("%d %d %d\n" % (len(want), want[0][1],
                                            sum(1 for w in want if w[2] == 2)))
PY

# the same in time slices (open exits begun slices before the end, joined there)
for slices in 2 5 9; do
	for opts in --json "" "--cpu 2 --json" "--vcpu 0,3"; do
		# shellcheck disable=SC2086
		vmtrace-report --jobs 1 $opts plain.vmt >one.txt 2>/dev/null
		# shellcheck disable=SC2086
		VMTRACE_TEST_SLICES=$slices vmtrace-report --jobs 3 $opts plain.vmt >many.txt \
			2>many.err
		grep -q "^vmtrace-report: $slices time slices$" many.err ||
			fail "plain.vmt: not in $slices slices"
		cmp -s one.txt many.txt || { diff one.txt many.txt | head >&2;
			fail "plain.vmt in $slices slices $opts: differs from one pass"; }
	done
done
# A recording that gives its stop (END's trace.stop_ts: tracing off, as vmtrace-record
# writes it) has its open exits open until then, not until its last record: a vCPU stuck
# out on an idle CPU shows the time it was out, and --fail-if open> sees it. A stop before
# the last record (clock skew) leaves the last record; a stop that is no number is damage.
for stop in 5000000:5000000 100:900002 abc:900002; do
	ts=${stop%:*} until=${stop#*:}
	{ cat plain.txt; echo "endmeta trace.stop_ts $ts"; } >stop.txt
	"$HELPERS/mkvmt" "$FMT" stop.vmt <stop.txt || fail "mkvmt stop"
	run vmtrace-report --jobs 1 --json stop.vmt
	[ "$ts" = abc ] && expect_rc 2 "trace.stop_ts abc" || expect_rc 0 "trace.stop_ts $ts"
	cp out.txt stop.json
	python3 - stop.json plain.json "$until" <<'PY' || fail "trace.stop_ts $ts: the open exits"
import json, sys
d, p, until = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
start = d["open_exits"][0]["ts"] - d["open_exits"][0]["time_ns"]
assert d["open_until_ns"] == until - start, (d["open_until_ns"], until - start)
assert [(o["pid"], o["open_ns"]) for o in d["open_exits"]] == \
    [(o["pid"], until - o["ts"]) for o in p["open_exits"]], d["open_exits"]
PY
	VMTRACE_TEST_SLICES=5 vmtrace-report --jobs 3 --json stop.vmt 2>/dev/null |
		cmp -s - stop.json || fail "trace.stop_ts $ts: slices differ from one pass"
	vmtrace-report stop.vmt >stop.out 2>/dev/null
	if [ "$ts" = 5000000 ]; then
		grep -q "^  Open at stop, not entered when tracing stopped at 0.004998000 s" stop.out ||
			{ cat stop.out; fail "trace.stop_ts: the head of the open exits"; }
		vmtrace-report --fail-if 'open>4ms' stop.vmt >/dev/null 2>&1
		[ $? = 1 ] || fail "--fail-if open>4ms: not held at a stop 4.4 ms after the exits"
	else
		grep -q "^  Open at stop, not entered by the last event at" stop.out ||
			{ cat stop.out; fail "trace.stop_ts $ts: the head of the open exits"; }
	fi
done

# the filters keep an open exit by its exit, as a pair
vmtrace-report --json --cpu 2 plain.vmt >cpu2.json 2>/dev/null || fail "--cpu 2"
[ "$(json cpu2.json '[o["pid"] for o in d["open_exits"]]')" = "[200, 400]" ] ||
	fail "--cpu 2: the open exits of CPU 2"

# with context events: 100 (CPU 1) takes an interrupt, then sleeps and is never woken; 200
# (CPU 2) is preempted by hog (701) until the end; 300 (CPU 3) sleeps, hog wakes it, and it
# waits for a CPU until the end
CTX="sched:sched_switch,sched:sched_waking,irq:irq_handler_entry,irq:irq_handler_exit"
{
	echo "cpus 1,2,3"
	for c in 1 2 3; do echo "stats $c 0 0"; done
	echo "context $CTX"
	echo "exit 1 1000 100 0x1e 0"
	echo "entry 1 3000 100 0"
	echo "exit 2 1500 200 0x1e 1"
	echo "entry 2 2500 200 1"
	echo "exit 3 1700 300 0x1e 2"
	echo "entry 3 2700 300 2"
	echo "exit 1 10000 100 0x78 0"
	echo "ctx 1 10400 irq:irq_handler_entry 8 100 irq=24 name=eth0"
	echo "ctx 1 10650 irq:irq_handler_exit 8 100 irq=24 ret=1"
	echo "ctx 1 11000 sched:sched_switch 0 100 prev_comm=vcpu0 prev_pid=100 prev_state=1" \
		"next_comm=swapper/1 next_pid=0"
	echo "exit 2 12000 200 0x30 1"
	echo "ctx 2 12300 sched:sched_switch 0 200 prev_comm=vcpu1 prev_pid=200 prev_state=0" \
		"next_comm=hog next_pid=701"
	echo "exit 3 13000 300 0x78 2"
	echo "ctx 3 13100 sched:sched_switch 0 300 prev_comm=vcpu2 prev_pid=300 prev_state=1" \
		"next_comm=swapper/3 next_pid=0"
	echo "ctx 2 15000 sched:sched_waking 0 701 comm=vcpu2 pid=300 target_cpu=3"
	for c in 1 2 3; do echo "other $c 40000"; done
	echo "other 2 47000"
} >ctx.txt
"$HELPERS/mkvmt" "$FMT" ctx.vmt <ctx.txt || fail "mkvmt ctx"
vmtrace-report --json ctx.vmt >ctx.json 2>/dev/null || fail "ctx --json"
vmtrace-report ctx.vmt >ctx.out 2>/dev/null || fail "ctx text"
widths_ok ctx.out || fail "ctx: lines over 120 columns"
python3 - ctx.txt ctx.json ctx.out <<'PY' || fail "ctx: causes so far differ from a recount"
import json, sys
d = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
lines = [l.split() for l in open(sys.argv[1])]
until = max(int(f[2]) for f in lines if f[0] in ("exit", "entry", "other", "ctx"))
kv = lambda f: dict(x.split("=", 1) for x in f[6:])
last_exit = {}
for f in lines:
    if f[0] == "exit":
        last_exit[int(f[3])] = (int(f[1]), int(f[2]))
    elif f[0] == "entry":
        del last_exit[int(f[3])]
want = {}
for pid, (cpu, t0) in last_exit.items():
    kinds = {"kvm": 0, "irq": 0, "preempted": 0, "blocked": 0, "wakeup": 0}
    parts, irq, out = set(), 0, None
    for f in lines:
        if f[0] != "ctx" or int(f[2]) < t0:
            continue
        a, ts = kv(f), int(f[2])
        if f[3] == "irq:irq_handler_entry" and int(f[1]) == cpu and out is None:
            irq_from, name = ts, a["name"]
        elif f[3] == "irq:irq_handler_exit" and int(f[1]) == cpu and out is None:
            irq += ts - irq_from
            parts.add(("irq", None, name))
        elif f[3] == "sched:sched_switch" and int(a["prev_pid"]) == pid:
            out = (ts, int(a["prev_state"]), int(a["next_pid"]), a["next_comm"])
        elif f[3] == "sched:sched_waking" and int(a["pid"]) == pid:
            wake = (ts, int(f[5]))
    kinds["irq"] = irq
    kinds["kvm"] = out[0] - t0 - irq
    if out[1] == 0:
        kinds["preempted"] = until - out[0]
        parts.add(("preempted", out[2], out[3]))
    elif pid == 300:
        kinds["blocked"], kinds["wakeup"] = wake[0] - out[0], until - wake[0]
        parts |= {("blocked", wake[1], "hog"), ("wakeup", None, "")}
    else:
        kinds["blocked"] = until - out[0]
        parts.add(("blocked", None, ""))
    want[pid] = (until - t0, kinds, parts | {("kvm", None, "")})
got = {}
for o in d["open_exits"]:
    w = o["why"]
    got[o["pid"]] = (o["open_ns"], {k: w[k + "_ns"] for k in want[o["pid"]][1]},
                     {(p["kind"], p["pid"], p["name"]) for p in w["parts"]})
    assert not w["incomplete"] and sum(p["ns"] for p in w["parts"]) == o["open_ns"]
assert got == want, (got, want)
assert [o["pid"] for o in d["open_exits"]] == [100, 200, 300]
# the causes' totals and the culprits are the pairs' alone
assert d["pairs"] == 3 and d["total_ns"] == 2000 + 1000 + 1000, d["total_ns"]
assert all(c["name"] != "hog" for c in d["culprits"]), d["culprits"]
assert text.count("      so far: ") == 3, text
assert "preempted 34.70 us by hog (pid 701)" in text, text
PY

# the real sample: two vCPU tasks whose last event is an exit, open until its last record
cp "$DATA/why/sample/kvm.vmt" .
vmtrace-report --json kvm.vmt >s.json 2>/dev/null || fail "sample --json"
vmtrace-report kvm.vmt >s.out 2>/dev/null || fail "sample text"
widths_ok s.out || fail "sample: lines over 120 columns"
vmtrace-convert --events --jsonl kvm.vmt -o ev.jsonl 2>/dev/null || fail "--events"
python3 "$top_srcdir/tests/helpers/vmtedit.py" kvm.vmt records >rec.txt || fail "records"
python3 - ev.jsonl rec.txt s.json s.out <<'PY' || fail "sample: open exits differ from a recount"
import json, sys
last = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    last[e["task"]] = e
until = max(int(l.split()[4]) for l in open(sys.argv[2]))
d = json.load(open(sys.argv[3]))
want = sorted(((until - e["ts_ns"], e["task"], e["pcpu"], e["time_ns"], e["reason_code"],
                e["vcpu"]) for e in last.values() if e["kind"] == "exit"), reverse=True)
got = [(o["open_ns"], o["pid"], o["cpu"], o["time_ns"], o["code"], o["vcpu"])
       for o in d["open_exits"]]
assert len(want) == 2 == d["open_at_stop"] and got == want, (got, want)
# one writer for the longest exits and the open ones: the same keys (but the latency and the
# open exit's own), the guest RIP and the other fields as the events' view shows them
for o in d["open_exits"]:
    e = last[o["pid"]]
    assert all(o.get(k) == e[k] for k in ("rip", "info1", "info2")), (o, e)
    assert set(o) - {"open_ns", "lost_since", "comm"} == set(d["top"][0]) - {"latency_ns"}, o
for o in d["open_exits"]:
    w = o["why"]
    assert sum(p["ns"] for p in w["parts"]) == o["open_ns"] == sum(
        w[k] for k in w if k.endswith("_ns") and k != "before_exit_ns"), w
    # host interrupts before the exit's trace point: apart from its time, known (0 here)
    assert w["before_exit_ns"] == 0, w
    # both vCPUs were asleep when the events stop: no wake-up came
    assert w["culprit"]["kind"] == "blocked" and not w["incomplete"], w["culprit"]
text = open(sys.argv[4]).read()
assert text.count("      so far: ") == 2
PY

# a task whose only begin is open (a system call never returned), named by the context
# events: its name, not "- (pid)"
{
	echo "events raw_syscalls:sys_enter raw_syscalls:sys_exit"
	echo "cpus 1"
	echo "stats 1 0 0"
	echo "context sched:sched_switch"
	echo "exit 1 1000 100 0x1e"
	echo "entry 1 2000 100"
	echo "exit 1 3000 500 0x3d"
	echo "ctx 1 3500 sched:sched_switch 0 500 prev_comm=hung prev_pid=500 prev_state=1" \
		"next_comm=swapper/1 next_pid=0"
	echo "other 1 9000"
} >named.txt
"$HELPERS/mkvmt" "$FMT" named.vmt <named.txt || fail "mkvmt named"
vmtrace-report --json named.vmt >named.json 2>/dev/null || fail "named --json"
vmtrace-report named.vmt >named.out 2>/dev/null || fail "named text"
python3 - named.txt named.json named.out <<'PY' || fail "named: the open exit's task name"
import json, sys
names = {int(kv["prev_pid"]): kv["prev_comm"] for kv in (
    dict(x.split("=", 1) for x in l.split()[6:]) for l in open(sys.argv[1])
    if l.startswith("ctx "))}
d = json.load(open(sys.argv[2]))
assert [(o["pid"], o["comm"]) for o in d["open_exits"]] == [(500, names[500])], d["open_exits"]
rows = [l.split()[:2] for l in open(sys.argv[3]) if l.startswith("    ") and " pcpu 1 " in l]
assert rows == [[names[500], "(500)"]], rows
PY

# losses: placed before an exit (no caveat), none (none), and counted by a CPU's statistics
# on no page (they could be after it: its entry may be among them)
{
	echo "cpus 0,1,2"
	echo "stats 0 0 3"
	echo "stats 1 0 7"
	echo "stats 2 0 0"
	echo "page 0 missed 3"
	echo "exit 2 500 300 0x1e 2"
	echo "entry 2 700 300 2"
	echo "exit 0 1000 100 0x78 0"
	echo "exit 1 3000 101 0x78 1"
	echo "exit 2 4000 102 0x78 2"
	echo "other 2 5000000000"
} >lost.txt
"$HELPERS/mkvmt" "$FMT" lost.vmt <lost.txt || fail "mkvmt lost"
vmtrace-report --json lost.vmt >lost.json 2>/dev/null || fail "lost --json"
vmtrace-report lost.vmt >lost.out 2>/dev/null || fail "lost text"
python3 - lost.txt lost.json lost.out <<'PY' || fail "lost: lost_since differs from a recount"
import json, sys
stats, placed, opened, flagged = {}, {}, {}, {}
for f in (l.split() for l in open(sys.argv[1])):
    if f[0] == "stats":
        stats[int(f[1])] = int(f[3]) - int(f[2])
    elif f[0] == "page" and "missed" in f:
        placed[int(f[1])] = placed.get(int(f[1]), 0) + int(f[3])
        for pid, cpu in opened.items():
            flagged[pid] |= cpu == int(f[1])
    elif f[0] == "exit":
        opened[int(f[3])] = int(f[1])
        flagged[int(f[3])] = False
    elif f[0] == "entry":
        del opened[int(f[3])]
want = {pid: flagged[pid] or stats[cpu] > placed.get(cpu, 0) for pid, cpu in opened.items()}
d = json.load(open(sys.argv[2]))
got = {o["pid"]: o["lost_since"] for o in d["open_exits"]}
assert got == want == {100: False, 101: True, 102: False}, (got, want)
text = open(sys.argv[3]).read()
assert text.count("its entry may be among them") == sum(want.values()), text
PY

# a trace.dat's chunks store no counts: the recording's statistics against the pages' counts
# read, for every CPU at once (all placed: no caveat; some not: every open exit may have lost
# its entry)
sed -e '/^stats 1 /s/.*/stats 1 0 0/' -e '/^exit 2 4000/d' lost.txt >placed.txt
"$HELPERS/mkvmt" "$FMT" placed.vmt <placed.txt || fail "mkvmt placed"
for f in lost placed; do
	"$HELPERS/mktracedat" -V 6 -z none $f.vmt $f.dat || fail "mktracedat $f"
	vmtrace-report --json $f.dat >$f.dat.json 2>/dev/null || fail "$f.dat --json"
done
python3 - lost.txt lost.dat.json placed.txt placed.dat.json <<'PY' || fail "trace.dat: lost_since"
import json, sys
for script, report in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    stats = placed = 0
    opened, flagged = {}, {}
    for f in (l.split() for l in open(script)):
        if f[0] == "stats":
            stats += int(f[3]) - int(f[2])
        elif f[0] == "page" and "missed" in f:
            placed += int(f[3])
            for pid, cpu in opened.items():
                flagged[pid] |= cpu == int(f[1])
        elif f[0] == "exit":
            opened[int(f[3])], flagged[int(f[3])] = int(f[1]), False
        elif f[0] == "entry":
            del opened[int(f[3])]
    want = {pid: flagged[pid] or stats > placed for pid in opened}
    got = {o["pid"]: o["lost_since"] for o in json.load(open(report))["open_exits"]}
    assert got == want, (report, got, want)
    assert any(want.values()) == (script == sys.argv[1]), want
PY

# the filters: the count is the recording's, the list the filters' and its head says so
vmtrace-report --cpu 2 plain.vmt >cpu2.out 2>/dev/null || fail "--cpu 2 text"
vmtrace-report --vcpu 7 plain.vmt >none.out 2>/dev/null
vmtrace-report --from 0.00045 plain.vmt >late.out 2>late.err || fail "--from"
python3 - plain.txt cpu2.out none.out late.out late.err <<'PY' || fail "filters: open list"
import sys
start, opened = None, {}
for f in (l.split() for l in open(sys.argv[1])):
    if f[0] in ("exit", "entry", "other"):
        start = int(f[2]) if start is None else min(start, int(f[2]))
    if f[0] == "exit":
        opened[int(f[3])] = (int(f[1]), int(f[2]))
    elif f[0] == "entry":
        del opened[int(f[3])]
text = open(sys.argv[2]).read().splitlines()
kept = sum(cpu == 2 for cpu, ts in opened.values())
i = next(k for k, l in enumerate(text) if l.startswith("Orphan events"))
assert text[i].endswith(f", {len(opened)} open at stop)"), text[i]
assert text[i + 1].startswith(f"  Open at stop, {kept} of them kept by the filters, "), text[i + 1]
rows = [l for l in text[i + 2:i + 8] if l.startswith("    ") and "pcpu" in l]
assert len(rows) == kept and all(" pcpu 2 " in r for r in rows), rows
none = open(sys.argv[3]).read()
assert "  Open at stop: none of them kept by the filters\n" in none, none
late = sum(ts - start >= 450000 for cpu, ts in opened.values())
err = open(sys.argv[5]).read()
assert "nothing selected" not in err, err
assert (f"no exit-entry pair meets all the filters, but {late} exits open at the stop do"
        in err), err
assert "  Open at stop, not entered by the last event" in open(sys.argv[4]).read()
PY

# the HTML page: the same rows as the text (three, then "and N more"), their time open as
# the recount's; with a filter, how many it kept
vmtrace-report --jobs 1 --html page.html plain.vmt >/dev/null 2>&1 || fail "--html"
vmtrace-report --jobs 1 --cpu 2 --html cpu2.html plain.vmt >/dev/null 2>&1 || fail "--html --cpu 2"
vmtrace-report --html ctx.html ctx.vmt >/dev/null 2>&1 || fail "--html ctx"
PYTHONPATH="$top_srcdir/tests/helpers" python3 - plain.txt page.html cpu2.html ctx.html ctx.json \
	<<'PY' || fail "html: open exits differ from a recount"
import json, re, sys
from htmltree import Build
opened, until = {}, 0
for f in (l.split() for l in open(sys.argv[1])):
    if f[0] in ("exit", "entry", "other"):
        until = max(until, int(f[2]))
    if f[0] == "exit":
        opened[int(f[3])] = (int(f[1]), int(f[2]))
    elif f[0] == "entry":
        del opened[int(f[3])]
def page(path):
    b = Build()
    b.feed(open(path, encoding="utf-8").read())
    sec = [n for n in b.root.all("section") if n.a.get("id") == "open-at-stop"]
    assert len(sec) == 1, path
    rows = [r for r in sec[0].all("tr") if "data-open-ns" in r.a]
    return sec[0].alltext(), [(int(r.a["data-open-ns"]), [c.alltext() for c in r.all("td")][5])
                              for r in rows]
text, rows = page(sys.argv[2])
want = sorted(((until - ts, str(pid)) for pid, (cpu, ts) in opened.items()), reverse=True)
assert rows == want[:3], (rows, want)
assert f"and {len(want) - 3} more" in text and f"{len(want)} exits never entered" in text, text
text, rows = page(sys.argv[3])
kept = sorted(((until - ts, str(pid)) for pid, (cpu, ts) in opened.items() if cpu == 2),
              reverse=True)
assert rows == kept and f", {len(kept)} of them kept by the filters" in text, (rows, text)
# with context events, each row's causes so far: the JSON's parts, the same total
text, rows = page(sys.argv[4])
d = json.load(open(sys.argv[5]))
assert [r[0] for r in rows] == [o["open_ns"] for o in d["open_exits"]], rows
assert text.count(" = ") == len(d["open_exits"]) == 3, text
PY

# several recordings merged: each one's exits open at the stop counted, as in its own report
vmtrace-report --json plain.vmt ctx.vmt >merge.json 2>/dev/null || fail "merge --json"
vmtrace-report plain.vmt ctx.vmt >merge.out 2>/dev/null || fail "merge text"
widths_ok merge.out || fail "merge: lines over 120 columns"
python3 - plain.txt ctx.txt merge.json merge.out <<'PY' || fail "merge: open at stop per file"
import json, sys
def still_open(path):
    opened = {}
    for f in (l.split() for l in open(path)):
        if f[0] == "exit":
            opened[f[3]] = True
        elif f[0] == "entry":
            opened.pop(f[3], None)
    return len(opened)
want = [still_open(sys.argv[1]), still_open(sys.argv[2])]
d = json.load(open(sys.argv[3]))
assert [f["open_at_stop"] for f in d["files"]] == want == [4, 3], (d["files"], want)
line = ("Open at stop (in no figure; each recording's report lists them): "
        f"[1] {want[0]}, [2] {want[1]}")
assert line in open(sys.argv[4]).read().splitlines(), line
PY

# A file cut short (a copy, a full disk, a recording still being written): its exits open
# at its end are not open at the stop. The text says where they end and why their entries
# may be missing, the JSON's lost_since is true for each, the page says it too; the open
# exits are those a recount of the cut file's own events leaves without an entry.
head -c $(($(wc -c <plain.vmt) * 6 / 10)) plain.vmt >cut.vmt
# (exit status 2: reported from what is whole, as the man page says of such a file)
vmtrace-report --jobs 1 --json cut.vmt >cut.json 2>/dev/null
[ $? = 2 ] || fail "--json on a cut file: not exit status 2"
vmtrace-report --jobs 1 --html cut.html cut.vmt >cut.out 2>/dev/null
[ $? = 2 ] || fail "cut: text"
vmtrace-convert --csv --events -o cut.csv cut.vmt 2>/dev/null
[ $? = 2 ] || fail "cut: --events"
python3 - cut.json cut.out cut.csv plain.out cut.html <<'PY' || fail "cut: the open exits"
import csv, json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
assert d["finished"] is False, d["finished"]
last = {}
for r in csv.DictReader(open(sys.argv[3])):
    if r["kind"] in ("exit", "entry"):
        last[int(r["task"])] = (r["kind"], int(r["ts_ns"]))
want = sorted((pid, ts) for pid, (kind, ts) in last.items() if kind == "exit")
got = sorted((o["pid"], o["ts"]) for o in d["open_exits"])
assert got == want and want, (got, want)
assert all(o["lost_since"] for o in d["open_exits"]), d["open_exits"]
head = [l for l in text if l.startswith("  Open at")]
assert len(head) == 1 and head[0].startswith("  Open at the file's end, not entered by"), head
i = text.index(head[0])
assert text[i + 1] == ("    (the recording was not finished: their entries may be in what "
                       "was not written)"), text[i + 1]
plain = open(sys.argv[4]).read()
assert "  Open at stop, not entered by" in plain and "not finished" not in plain
assert ("The recording was not finished: their entries may be in what was not written."
        in open(sys.argv[5]).read())
print("cut: %d open exits at the file's end, as its events leave them" % len(got))
PY
grep -q " 2 open at the file's end)$" cut.out || fail "cut: the orphans' line says 'at stop'"
grep -q "<h2>Open at the file's end</h2>" cut.html || fail "cut: the page's heading"
# filtered to one of them (its reason), an hour after the start: the count under the head,
# within 120 columns
python3 - plain.txt >cut1h.txt <<'PY'
import sys
for l in open(sys.argv[1]):
    f = l.split()
    if f and f[0] in ("exit", "entry", "other"):
        f[2] = str(int(f[2]) + 3600 * 10**9)
    print(" ".join(f))
    if f and f[0] == "cpus":
        print("other 1 500")
PY
"$HELPERS/mkvmt" "$FMT" cut1h.vmt <cut1h.txt || fail "mkvmt cut1h"
head -c $(($(wc -c <cut1h.vmt) * 6 / 10)) cut1h.vmt >cut1hc.vmt
code=$(json cut.json 'd["open_exits"][0]["code"]')
vmtrace-report --jobs 1 --reason "$code" cut1hc.vmt >cutf.out 2>/dev/null
[ $? = 2 ] || fail "cut, filtered: not exit status 2"
widths_ok cutf.out || fail "cut, filtered: lines over 120 columns"
grep -A2 "^  Open at the file's end, not entered by the last event at 36" cutf.out |
	tail -1 | grep -qx "    (1 of them kept by the filters)" ||
	fail "cut, filtered: the count kept: $(grep -A2 "^  Open at" cutf.out)"
vmtrace-report --jobs 1 --reason 0x77 cut.vmt >cutn.out 2>/dev/null
grep -A1 "^  Open at the file's end: none of them kept by the filters$" cutn.out | tail -1 |
	grep -q "the recording was not finished" || fail "cut, none kept: $(cat cutn.out)"

# A VM's long name and a long reason: cut with '~' within 120 columns, whole with --wide
NAME=a-virtual-machine-with-a-rather-long-name-from-an-orchestrator-0123456789
{
	echo "cpus 0"
	echo "meta vm.count 1"
	echo "meta vm.0.name $NAME"
	echo "meta vm.0.pid 900"
	echo "meta vm.0.vcpus 1000:0"
	echo "exit 0 1000 1000 0x78 0"
	echo "entry 0 3000 1000 0"
	echo "exit 0 5000 1000 0x402 0"
	echo "other 0 9000"
} >long.txt
"$HELPERS/mkvmt" "$FMT" long.vmt <long.txt || fail "mkvmt long"
vmtrace-report long.vmt >long.out || fail "long: text"
vmtrace-report --wide long.vmt >wide.out || fail "long: --wide"
widths_ok long.out || fail "long: lines over 120 columns"
row=$(grep -A1 "^  Open at stop" long.out | tail -1)
case $row in
*"~/vcpu0 (pid 1000)  pcpu 0  avic_unacceler~(0x402)  from 0.000004000 s  open 4.000 us") ;;
*) fail "long: the open exit's row is not cut as the tables cut: $row" ;;
esac
grep -A1 "^  Open at stop" wide.out | tail -1 | grep -qF \
	"    $NAME/vcpu0 (pid 1000)  pcpu 0  avic_unaccelerated_access(0x402)  from" ||
	fail "--wide: the open exit's names are not whole: $(grep -A1 "^  Open at" wide.out)"

# --fail-if's open: the longest time open, recounted; HLT is counted (an idle vCPU, the man
# says); --compare refuses it
{
	echo "cpus 0,1"
	echo "exit 0 1000 100 0x78 0"
	echo "entry 0 2000 100 0"
	echo "exit 1 1000 101 0x78 1"
	echo "exit 0 3000 100 0x1e 0"
	echo "entry 0 5000001000 100 0"
} >stuck.txt
"$HELPERS/mkvmt" "$FMT" stuck.vmt <stuck.txt || fail "mkvmt stuck"
open_ns=$(python3 -c 'import sys
ts = [int(l.split()[2]) for l in open(sys.argv[1]) if l.split()[0] in ("exit", "entry")]
print(max(ts) - 1000)' stuck.txt)
gate() { vmtrace-report --fail-if "$1" stuck.vmt >/dev/null 2>gate.err; echo $?; }
[ "$(gate "open>$((open_ns - 1))ns")" = 1 ] || fail "open>$((open_ns - 1))ns: not held"
[ "$(gate "open>=$((open_ns + 1))ns")" = 0 ] || fail "open>=$((open_ns + 1))ns: held"
[ "$(gate "hlt:open>=${open_ns}ns")" = 1 ] || fail "hlt:open: not held"
[ "$(gate "max>1ms")" = 1 ] || fail "max>1ms: the pair of 5 s"
cp stuck.vmt again.vmt
vmtrace-report --compare stuck.vmt again.vmt --fail-if 'open>1s' >/dev/null 2>cmp.err
[ $? = 64 ] && [ "$(wc -l <cmp.err)" = 1 ] || fail "--compare with open: not refused in a line"

# vmtrace-convert: an open exit has no row (per exit), no slice (the timeline) and is in no
# interval's figures (the series), which it says: the count and the longest's task as the
# script has them, its time open as the report's text writes it; per event, its exit's
# event has a row, and a filter that keeps none of them says nothing
read -r nopen longest_pid oncpu2 <open.want
longest=$(sed -n "s/^    .*($longest_pid) .* open \(.*\)$/\1/p" plain.out)
[ -n "$longest" ] || fail "the report's row of task $longest_pid"
for view in "--csv:have no row" "--jsonl:have no row" "--perfetto:have no slice" \
	    "--series=100us --csv:are in no interval's figures"; do
	# shellcheck disable=SC2086
	vmtrace-convert ${view%%:*} -o conv.out plain.vmt 2>conv.err ||
		fail "convert ${view%%:*}: exit $?"
	unfold conv.err | grep -qF "plain.vmt: $nopen exits still open at the stop (no entry came) \
${view#*:}: the longest open $longest, task $longest_pid, from" ||
		{ cat conv.err >&2; fail "convert ${view%%:*}: the open exits not said"; }
done
vmtrace-convert --csv -o conv.out plain.vmt 2>/dev/null
[ "$(($(wc -l <conv.out) - 1))" = 160 ] || fail "convert --csv: not the 160 pairs' rows"
vmtrace-convert --csv --cpu 2 -o conv.out plain.vmt 2>conv.err
unfold conv.err | grep -q "plain.vmt: $oncpu2 exits still open" ||
	fail "convert --cpu 2: not the $oncpu2 open exits of CPU 2: $(cat conv.err)"
vmtrace-convert --csv --events -o conv.out plain.vmt 2>conv.err
grep -q "still open" conv.err && fail "convert --events: open exits said, though they have rows"
vmtrace-convert --csv --to 400us -o conv.out plain.vmt 2>conv.err
grep -q "still open" conv.err && fail "convert --to 400us: open exits said, none selected"
finish
