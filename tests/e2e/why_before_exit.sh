#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Host interrupt handlers between a vCPU task's kvm_entry and its next kvm_exit, on the
# entry's CPU, interrupting that task (common/attrib.c: before_open(), before_close()): the
# exit's before_exit_ns, outside its parts, and the summary's counts. An oracle walks the
# script by the rule alone (outermost handlers only, the event's pid the task, the entry's
# CPU, after the entry); a handler before the task's first entry, one on another CPU, one
# while another task was current and nested ones are in it. The latencies stay exit ->
# entry. Then the real AMD / Linux 6.1 recording: a recount from -v's events equals the
# JSON's totals and the CSV's every row. Without irq events, or for a pair not KVM's, the
# figure is null (not measured), never 0.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
CTX="sched:sched_switch,sched:sched_waking,irq:irq_handler_entry,irq:irq_handler_exit"
CTX="$CTX,irq:softirq_entry,irq:softirq_exit"
CTX="$CTX,irq_vectors:local_timer_entry,irq_vectors:local_timer_exit"
sw() { # cpu ts prev prevcomm state next nextcomm
	echo "ctx $1 $2 sched:sched_switch 0 $3 prev_comm=$4 prev_pid=$3 prev_state=$5" \
		"next_comm=$7 next_pid=$6"
}
irq() { # cpu ts pid entry|exit irq
	if [ "$4" = entry ]; then
		echo "ctx $1 $2 irq:irq_handler_entry 8 $3 irq=$5 name=eth$5"
	else
		echo "ctx $1 $2 irq:irq_handler_exit 8 $3 irq=$5 ret=1"
	fi
}
soft() { # cpu ts pid entry|exit vec
	echo "ctx $1 $2 irq:softirq_$4 0 $3 vec=$5"
}
timer() { # cpu ts pid entry|exit
	echo "ctx $1 $2 irq_vectors:local_timer_$4 8 $3 vector=236"
}
body() {
	sw 1 1000 0 swapper/1 0 100 vcpuA
	sw 2 500 0 swapper/2 0 200 vcpuB
	# before 100's first entry: not in the guest yet
	irq 1 2000 100 entry 24
	irq 1 2500 100 exit 24
	echo "entry 2 1500 200 1"
	echo "entry 1 3000 100 0"
	# a timer with a softirq inside it, then an interrupt: 600 + 300
	timer 1 4000 100 entry
	soft 1 4100 100 entry 1
	soft 1 4500 100 exit 1
	timer 1 4600 100 exit
	irq 1 5000 100 entry 24
	irq 1 5300 100 exit 24
	echo "exit 1 6000 100 0x60 0"
	echo "entry 1 6500 100 0"
	soft 1 7000 100 entry 3
	soft 1 7400 100 exit 3
	# preempted before the exit's trace point: hog's interrupt is not 100's
	sw 1 7600 100 vcpuA 0 300 hog
	irq 1 7700 300 entry 24
	irq 1 7900 300 exit 24
	# vcpuB's, on its own CPU
	irq 2 8000 200 entry 25
	irq 2 8200 200 exit 25
	sw 1 8500 300 hog 0 100 vcpuA
	timer 1 8600 100 entry
	timer 1 8800 100 exit
	echo "exit 1 9000 100 0x72 0"
	echo "entry 1 9500 100 0"
	echo "exit 2 9500 200 0x60 1"
	echo "entry 2 9700 200 1"
	echo "exit 1 10000 100 0x72 0"
	echo "entry 1 10200 100 0"
	# moved to CPU 2 before its exit: an interrupt there is not on its entry's CPU
	sw 1 10500 100 vcpuA 0 300 hog
	sw 2 10600 200 vcpuB 0 100 vcpuA
	irq 2 10700 100 entry 25
	irq 2 10900 100 exit 25
	echo "exit 2 11000 100 0x60 0"
	sw 2 11100 100 vcpuA 0 200 vcpuB
	sw 1 11200 300 hog 0 100 vcpuA
	echo "entry 1 11300 100 0"
	irq 2 11400 200 entry 25
	irq 2 11450 200 exit 25
	echo "exit 2 12000 200 0x72 1"
	echo "entry 2 12100 200 1"
	# three deep: the outermost counts, once
	irq 1 12500 100 entry 24
	soft 1 12600 100 entry 3
	irq 1 12700 100 entry 26
	irq 1 12800 100 exit 26
	soft 1 12900 100 exit 3
	irq 1 13000 100 exit 24
	echo "exit 1 13500 100 0x60 0"
	echo "entry 1 13700 100 0"
	echo "other 1 20000"
	echo "other 2 20000"
}
{
	echo "cpus 1,2"
	echo "stats 1 0 0"
	echo "stats 2 0 0"
	echo "context $CTX"
	body
} >b.txt
"$HELPERS/mkvmt" "$FMT" b.vmt <b.txt || fail mkvmt
vmtrace-report --json --top 20 b.vmt >b.json || fail "--json"
vmtrace-report --top 20 b.vmt >b.report || fail report
vmtrace-report -v --why b.vmt >b.v || fail "-v --why"
vmtrace-convert --csv --why -o b.csv b.vmt 2>/dev/null || fail "convert --csv --why"
widths_ok b.report b.v || fail "lines over 120 columns"

python3 - b.txt b.json b.csv <<'PY' || fail "before_exit_ns against the oracle"
import csv, json, sys
ev = []
for l in open(sys.argv[1]):
    f = l.split()
    if f and f[0] in ("ctx", "exit", "entry"):
        ev.append(f)
ev.sort(key=lambda f: int(f[2]))   # the file's merged order: by time

# the rule, from the script alone
entry = {}      # pid -> [cpu, ts, sum]
stack = {}      # cpu -> open frames
outer = {}      # cpu -> (pid, start)
want, reason, lat = {}, {}, {}
last_exit = {}
for f in ev:
    cpu, ts = int(f[1]), int(f[2])
    if f[0] == "entry":
        pid = int(f[3])
        if pid in last_exit:
            lat[last_exit.pop(pid)] = ts
        entry[pid] = [cpu, ts, 0]
        stack[cpu] = []
        continue
    if f[0] == "exit":
        pid = int(f[3])
        e = entry.pop(pid, None)
        want[(ts, pid)] = e[2] if e else 0
        reason[(ts, pid)] = int(f[4], 16)
        last_exit[pid] = (ts, pid)
        stack[cpu] = []
        continue
    name, pid = f[3], int(f[5])
    if name == "sched:sched_switch":
        stack[cpu] = []
        outer.pop(cpu, None)
        continue
    if not name.endswith(("_entry", "_exit")) or name == "sched:sched_waking":
        continue
    st = stack.setdefault(cpu, [])
    if name.endswith("_entry"):
        if not st and pid in entry and entry[pid][0] == cpu:
            outer[cpu] = (pid, max(ts, entry[pid][1]))
        st.append(name)
    else:
        st.pop()
        if not st and cpu in outer:
            p, s0 = outer.pop(cpu)
            if p in entry and entry[p][0] == cpu:
                entry[p][2] += ts - s0
# what the script was written to hold
assert want == {(6000, 100): 900, (9000, 100): 600, (10000, 100): 0, (11000, 100): 0,
                (9500, 200): 200, (12000, 200): 50, (13500, 100): 500}, want

d = json.load(open(sys.argv[2]))
assert len(d["top"]) == len(want), len(d["top"])
for t in d["top"]:
    k = (t["ts"], t["pid"])
    w = t["why"]
    assert w["before_exit_ns"] == want[k], (k, w["before_exit_ns"], want[k])
    # outside the parts: they still add up to the latency, exit -> entry
    assert t["latency_ns"] == lat[k] - k[0], (k, t["latency_ns"])
    assert sum(p["ns"] for p in w["parts"]) == t["latency_ns"], k
assert d["before_exit_exits"] == sum(1 for v in want.values() if v), d["before_exit_exits"]
assert d["before_exit_ns"] == sum(want.values()), d["before_exit_ns"]
for r in d["why_by_reason"]:
    mine = [v for k, v in want.items() if reason[k] == r["code"]]
    assert r["before_exit_ns"] == sum(mine), (r["name"], r["before_exit_ns"], sum(mine))
    assert r["before_exit_exits"] == sum(1 for v in mine if v), r["name"]
rows = list(csv.DictReader(open(sys.argv[3])))
assert len(rows) == len(want)
for r in rows:
    k = (int(r["start_ts_ns"]), int(r["task"]))
    assert int(r["before_exit_ns"]) == want[k], (k, r["before_exit_ns"])
print("before the exits: %d exits, %d ns, as the oracle says" %
      (d["before_exit_exits"], d["before_exit_ns"]))
PY
# the text: the summary's line, and a line under the why of an exit that has any
grep -q "^host interrupts before the exits' trace points: 2.250 us in 5 exits" b.report ||
	fail "no summary line"
grep -A1 "^host interrupts before the exits' trace points" b.report |
	grep -q "^  with them, the longest time out of the guest: " || fail "no longest line"
grep -A1 '^ *why: 500 ns = ' b.report | grep -q '^ *+ 900 ns of host interrupts before' ||
	fail "no before line under the 6000 ns exit's why"
grep -q '^ *+ 600 ns of host interrupts before' b.v || fail "-v --why: no before line"

# without interrupt events: not measured (null, an empty cell), no line
sed 's/^context .*/context sched:sched_switch,sched:sched_waking/' b.txt | grep -v irq >n.txt
"$HELPERS/mkvmt" "$FMT" n.vmt <n.txt || fail "mkvmt (no irq events)"
vmtrace-report --json --top 3 n.vmt >n.json || fail "--json (no irq events)"
[ "$(json n.json 'd["before_exit_ns"], d["top"][0]["why"]["before_exit_ns"]')" = "(None, None)" ] ||
	fail "not measured, yet not null"
vmtrace-report n.vmt | grep -q 'trace points' && fail "a line without irq events"
vmtrace-convert --csv --why n.vmt 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["before_exit_ns"] == "" for r in rows), rows[0]' ||
	fail "CSV cell not empty without irq events"

# another pair (system calls): the time between an end and the next begin is not a guest's
{ echo "events raw_syscalls:sys_enter raw_syscalls:sys_exit"; cat b.txt; } >y.txt
"$HELPERS/mkvmt" "$FMT" y.vmt <y.txt || fail "mkvmt (a system call pair)"
vmtrace-report --json --top 3 y.vmt >y.json || fail "--json (a system call pair)"
[ "$(json y.json 'd["before_exit_ns"], d["top"][0]["why"]["before_exit_ns"]')" = "(None, None)" ] ||
	fail "measured for a pair not KVM's"

# the real recording (AMD, Linux 6.1): a recount from -v's events
S="$DATA/why/sample/kvm.vmt"
vmtrace-report -v "$S" >s.v || fail "-v on the sample"
vmtrace-report --json --top 0 "$S" >s.json || fail "--json on the sample"
vmtrace-convert --csv --why -o s.csv "$S" 2>/dev/null || fail "--csv --why on the sample"
python3 - s.v s.json s.csv <<'PY' || fail "the sample's before figures against the recount"
import csv, json, re, sys
entry, stack, outer, per_exit = {}, {}, {}, {}
frame = re.compile(r"^(irq \d+|softirq \S+|\S+) (entry|exit)\b")
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6 or f[1] != "cpu" or f[3] != "pid":
        continue
    sec, frac = f[0].split(".")
    ts, cpu, pid, kind = int(sec) * 10**9 + int(frac), int(f[2]), int(f[4]), f[5]
    if kind in ("ENTRY", "EXIT"):
        e = entry.pop(pid, None)
        if kind == "EXIT":
            per_exit[(ts, pid)] = e[2] if e else 0
        else:
            entry[pid] = [cpu, ts, 0]
        stack[cpu] = []
        outer.pop(cpu, None)
        continue
    rest = " ".join(f[6:])
    if f[6] == "switch":
        stack[cpu] = []
        outer.pop(cpu, None)
        continue
    m = frame.match(rest)
    if kind != "CTX" or not m or not (rest.startswith(("irq ", "softirq ")) or "(vector" in rest):
        continue
    st = stack.setdefault(cpu, [])
    if m.group(2) == "entry":
        e = entry.get(pid)
        if not st and e and e[0] == cpu:
            outer[cpu] = (pid, max(ts, e[1]))
        st.append(m.group(1))
    elif m.group(1) in st:
        i = len(st) - 1 - st[::-1].index(m.group(1))
        del st[i:]
        if i == 0 and cpu in outer:
            p, s0 = outer.pop(cpu)
            if p in entry and entry[p][0] == cpu:
                entry[p][2] += ts - s0
d = json.load(open(sys.argv[2]))
n = sum(1 for v in per_exit.values() if v)
total = sum(per_exit.values())
assert (d["before_exit_exits"], d["before_exit_ns"]) == (n, total), \
    (d["before_exit_exits"], d["before_exit_ns"], n, total)
rows = list(csv.DictReader(open(sys.argv[3])))
bad = [r for r in rows if int(r["before_exit_ns"]) != per_exit[(int(r["start_ns"]), int(r["task"]))]]
assert not bad and len(rows) == d["pairs"], (len(bad), len(rows))
# the exit the trial looked at: 11.2 ms of timer interrupts before 0.779200832
assert per_exit[(779200832, 117)] > 11000000, per_exit[(779200832, 117)]
# the longest time out of the guest of an exit with any (latency and before), from the
# CSV's rows and the recount: past the maximum latency here, which leaves it out
out = max((int(r["latency_ns"]) + per_exit[(int(r["start_ns"]), int(r["task"]))],
           int(r["latency_ns"])) for r in rows
          if per_exit[(int(r["start_ns"]), int(r["task"]))])
assert (d["before_exit_max_out_ns"], d["before_exit_max_out_latency_ns"]) == out, \
    (d["before_exit_max_out_ns"], d["before_exit_max_out_latency_ns"], out)
assert out[0] > d["latency_ns"]["max"], (out, d["latency_ns"])
for g in d["why_by_reason"]:
    mine = [(int(r["latency_ns"]) + per_exit[(int(r["start_ns"]), int(r["task"]))],
             int(r["latency_ns"])) for r in rows if int(r["reason_code"]) == g["code"] and
            per_exit[(int(r["start_ns"]), int(r["task"]))]]
    want = max(mine) if mine else (None, None)
    assert (g["before_exit_max_out_ns"], g["before_exit_max_out_latency_ns"]) == want, \
        (g["name"], g["before_exit_max_out_ns"], want)
print("sample: %d exits had host interrupts before their trace point, %d ns; the longest "
      "out of the guest with them %d ns (an exit of %d ns)" % (n, total, out[0], out[1]))
PY
exit 0
