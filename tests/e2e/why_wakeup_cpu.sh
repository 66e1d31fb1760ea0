#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A wake-up's wait is charged to what held the CPU where the woken vCPU is finally switched
# in (common/attrib.c: wait_credit()), not to the CPU sched_waking's target_cpu names (the
# one it slept on: the event comes before the kernel picks the queue). Exits built by hand;
# an oracle here walks each script: the waking, the switch-in's CPU, and who held that CPU
# in between (a switch's next from its time; the first event's prev before it; the
# innermost interrupt handler while one is open, a softirq on an idle CPU too, named
# "softirq NAME"), and compares every wakeup part of the JSON with that.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
CTX="sched:sched_switch,sched:sched_waking,irq:irq_handler_entry,irq:irq_handler_exit"
CTX="$CTX,irq:softirq_entry,irq:softirq_exit"
head="cpus 1,2,3
stats 1 0 0
stats 2 0 0
stats 3 0 0
context $CTX"
sw() { # cpu ts prev prevcomm state next nextcomm
	echo "ctx $1 $2 sched:sched_switch 0 $3 prev_comm=$4 prev_pid=$3 prev_state=$5" \
		"next_comm=$7 next_pid=$6"
}
wake() { # cpu ts waker target_cpu (from an interrupt: flags 8)
	echo "ctx $1 $2 sched:sched_waking 8 $3 comm=vcpuA pid=100 target_cpu=$4"
}
{
	# slept on CPU 1, which then runs busy1; woken for CPU 1 (target_cpu), switched in on
	# CPU 2, idle all along: idle, never busy1
	echo "$head"
	sw 1 5000 0 swapper/1 0 100 vcpuA
	sw 2 5000 602 busy2 1 0 swapper/2
	echo "exit 1 10000 100 0x78 0"
	sw 1 10100 100 vcpuA 1 601 busy1
	wake 2 11010 0 1
	sw 2 13000 0 swapper/2 0 100 vcpuA
	echo "entry 2 13100 100 0"
	# the same, CPU 2 running hogA then hogB meanwhile
	echo "exit 2 20000 100 0x78 0"
	sw 2 20100 100 vcpuA 1 0 swapper/2
	sw 1 20200 601 busy1 1 0 swapper/1
	wake 1 21000 0 2
	sw 1 21500 0 swapper/1 0 701 hogA
	sw 1 22300 701 hogA 0 702 hogB
	sw 1 23000 702 hogB 0 100 vcpuA
	echo "entry 1 23100 100 0"
	# switched in on CPU 3, whose first event is that switch: busy held it (its prev)
	echo "exit 1 30000 100 0x78 0"
	sw 1 30100 100 vcpuA 1 0 swapper/1
	wake 1 31010 0 1
	sw 3 34000 600 busy 0 100 vcpuA
	echo "entry 3 34100 100 0"
	# switched in on CPU 2, idle but in a net_rx softirq for most of the wait, then in an
	# interrupt of busy's: net_rx and eth0, not idle nor busy for that time
	echo "exit 3 36000 100 0x78 0"
	sw 3 36100 100 vcpuA 1 600 busy
	sw 2 36200 0 swapper/2 0 0 swapper/2
	wake 3 37000 600 3
	echo "ctx 2 37100 irq:softirq_entry 0 0 vec=3"
	echo "ctx 2 38900 irq:softirq_exit 0 0 vec=3"
	sw 2 39000 0 swapper/2 0 603 busy3
	echo "ctx 2 39200 irq:irq_handler_entry 8 603 irq=24 name=eth0"
	echo "ctx 2 39500 irq:irq_handler_exit 8 603 irq=24 ret=1"
	sw 2 39700 603 busy3 0 100 vcpuA
	echo "entry 2 39800 100 0"
	echo "other 1 40000"
	echo "other 2 40000"
	echo "other 3 40000"
} >wake.txt
"$HELPERS/mkvmt" "$FMT" wake.vmt <wake.txt || fail mkvmt
vmtrace-report --json --top 10 wake.vmt >wake.json || fail "--json"
vmtrace-report -v --why wake.vmt >wake.v || fail "-v --why"
widths_ok wake.v || fail "lines over 120 columns"

python3 - wake.txt wake.json <<'PY' || fail "wake-up holders"
import json, sys
ev = [l.split() for l in open(sys.argv[1]) if l.split() and l.split()[0] in
      ("ctx", "exit", "entry")]
d = json.load(open(sys.argv[2]))

def kv(f):
    return dict(x.split("=", 1) for x in f if "=" in x)

def holders(cpu, t0, t1):
    """{(pid or None, name): ns} of what held cpu over [t0, t1), from its events alone"""
    mine = [e for e in ev if e[0] == "ctx" and int(e[1]) == cpu]
    first = kv(mine[0][6:])
    hold = int(first.get("prev_pid", mine[0][5]))
    names = {hold: first.get("prev_comm", "")}
    frames, out, at = [], {}, 0

    def who():
        if frames:
            return (None, frames[-1])
        return (None, "idle") if hold == 0 else (hold, names.get(hold, ""))

    def add(a, b):
        a, b = max(a, t0), min(b, t1)
        if b > a:
            out[who()] = out.get(who(), 0) + b - a
    for e in mine:
        ts, f = int(e[2]), kv(e[6:])
        add(at, ts)
        at = ts
        if e[3] == "sched:sched_switch":
            hold = int(f["next_pid"])
            names[hold] = f["next_comm"]
        elif e[3] == "irq:softirq_entry":
            # said to be a softirq: "net_rx" alone would read as an interrupt's name
            frames.append("softirq " + {"3": "net_rx", "1": "timer"}[f["vec"]])
        elif e[3].endswith("_entry"):
            frames.append(f["name"])
        elif e[3].endswith("_exit"):
            frames.pop()
    add(at, t1)
    return out

checked = 0
exits = [(int(e[2]), e) for e in ev if e[0] == "exit"]
for t0, x in exits:
    entry = next(e for e in ev if e[0] == "entry" and int(e[2]) > t0)
    t1 = int(entry[2])
    w = next(int(e[2]) for e in ev if e[0] == "ctx" and e[3] == "sched:sched_waking" and
             t0 < int(e[2]) < t1)
    s = next(e for e in ev if e[0] == "ctx" and e[3] == "sched:sched_switch" and
             kv(e[6:])["next_pid"] == "100" and w < int(e[2]) <= t1)
    want = holders(int(s[1]), w, int(s[2]))
    top = next(t for t in d["top"] if t["ts"] == t0)
    got = {(p["pid"], p["name"]): p["ns"] for p in top["why"]["parts"] if p["kind"] == "wakeup"}
    assert got == want, (t0, got, want)
    assert not top["why"]["incomplete"], t0
    checked += 1
assert checked == len(exits) == 4, checked
print("wake-ups: %d exits, every holder as the oracle says" % checked)
PY
# in the text: the idle CPU it ran on, never the task on the CPU it slept on
grep -q 'wakeup 1.990 us (idle)' wake.v || fail "idle not named"
! grep -q 'behind busy1' wake.v || fail "busy1 (CPU 1) blamed"
grep -q 'wakeup 2.990 us behind busy (pid 600)' wake.v || fail "busy (the switch's prev) not named"
grep -q 'wakeup 1.800 us (softirq net_rx)' wake.v || fail "the softirq on the idle CPU not named"
exit 0
