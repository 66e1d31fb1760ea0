#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A vCPU task asleep, woken, and woken AGAIN before any switch-in on a traced CPU ran (and
# slept again) on a CPU not traced: the kernel wakes only a sleeping task. Only CPU 1 is
# traced here. What it did from the first wake-up to the last one is not known: kvm, the
# exit incomplete, that span its unknown time (common/attrib.c: woken_again()); from the
# last wake-up its wait is charged as usual, never one long confident "wakeup (idle)". A
# sched_wakeup after the sched_waking of the same wake-up is no second one. The oracle
# reads the script: the switch-out asleep, the wake-ups (a sched_wakeup right after a
# sched_waking of the same task is the same), the switch-in, and what held CPU 1.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
sw() { # cpu ts prev prevcomm state next nextcomm
	echo "ctx $1 $2 sched:sched_switch 0 $3 prev_comm=$4 prev_pid=$3 prev_state=$5" \
		"next_comm=$7 next_pid=$6"
}
wake() { # cpu ts event flags waker
	echo "ctx $1 $2 sched:$3 $4 $5 comm=vcpuA pid=100 prio=120 target_cpu=1"
}
{
	echo "cpus 1"
	echo "stats 1 0 0"
	echo "context sched:sched_switch,sched:sched_waking,sched:sched_wakeup"
	sw 1 5000 0 swapper/1 0 100 vcpuA
	echo "entry 1 6000 100 0"
	# woken by bash, which sleeps; woken again from an interrupt 4 us later: it ran on
	# CPU 0 (not traced) meanwhile
	echo "exit 1 10000 100 0x78 0"
	sw 1 10100 100 vcpuA 1 0 swapper/1
	sw 1 10900 0 swapper/1 0 500 bash
	wake 1 11000 sched_waking 0 500
	sw 1 11200 500 bash 1 0 swapper/1
	wake 1 15000 sched_waking 8 0
	sw 1 20000 0 swapper/1 0 100 vcpuA
	echo "entry 1 20100 100 0"
	# three wake-ups: unknown from the first to the third
	echo "exit 1 22000 100 0x78 0"
	sw 1 22100 100 vcpuA 1 0 swapper/1
	wake 1 23000 sched_waking 8 0
	wake 1 24000 sched_waking 8 0
	wake 1 26000 sched_waking 8 0
	sw 1 27000 0 swapper/1 0 100 vcpuA
	echo "entry 1 27100 100 0"
	# one wake-up told twice (sched_waking, then its sched_wakeup): complete
	echo "exit 1 30000 100 0x78 0"
	sw 1 30100 100 vcpuA 1 0 swapper/1
	wake 1 31000 sched_waking 8 0
	wake 1 31050 sched_wakeup 8 0
	sw 1 32000 0 swapper/1 0 100 vcpuA
	echo "entry 1 32100 100 0"
	echo "other 1 40000"
} >w.txt
"$HELPERS/mkvmt" "$FMT" w.vmt <w.txt || fail mkvmt
vmtrace-report --json --top 10 w.vmt >w.json || fail "--json"
vmtrace-report -v --why w.vmt >w.v || fail "-v --why"
widths_ok w.v || fail "lines over 120 columns"

python3 - w.txt w.json <<'PY' || fail "woken twice against the oracle"
import json, sys
ev = [l.split() for l in open(sys.argv[1]) if l.split() and l.split()[0] in
      ("ctx", "exit", "entry")]
d = json.load(open(sys.argv[2]))
kv = lambda f: dict(x.split("=", 1) for x in f if "=" in x)
unknown_all, checked = 0, 0
for i, x in enumerate(ev):
    if x[0] != "exit":
        continue
    t0 = int(x[2])
    j = next(j for j in range(i, len(ev)) if ev[j][0] == "entry")
    t1 = int(ev[j][2])
    inside = ev[i + 1:j]
    out = next(int(e[2]) for e in inside if e[3] == "sched:sched_switch" and
               kv(e[6:])["prev_pid"] == "100")
    back = next(int(e[2]) for e in inside if e[3] == "sched:sched_switch" and
                kv(e[6:])["next_pid"] == "100")
    wakes, prev = [], None
    for e in inside:
        if e[3] in ("sched:sched_waking", "sched:sched_wakeup"):
            # the sched_wakeup of the sched_waking just before it: the same wake-up
            if not (e[3] == "sched:sched_wakeup" and prev == "sched:sched_waking"):
                wakes.append(int(e[2]))
            prev = e[3]
    # CPU 1 idle from the last wake-up to the switch-in (the script's): "idle"
    hold = [kv(e[6:])["next_pid"] for e in inside if e[3] == "sched:sched_switch" and
            int(e[2]) <= wakes[-1]]
    assert hold[-1] == "0", hold
    unknown = wakes[-1] - wakes[0]
    want = {"kvm": (out - t0) + unknown + (t1 - back), "blocked": wakes[0] - out,
            "wakeup": back - wakes[-1]}
    top = next(t for t in d["top"] if t["ts"] == t0)
    w = top["why"]
    got = {k: w[k + "_ns"] for k in want}
    assert got == want, (t0, got, want)
    assert w["incomplete"] == (len(wakes) > 1), (t0, w["incomplete"], wakes)
    idle = [p for p in w["parts"] if p["kind"] == "wakeup"]
    assert [(p["name"], p["ns"]) for p in idle] == [("idle", want["wakeup"])], (t0, idle)
    unknown_all += unknown
    checked += 1
hlt = next(r for r in d["why_by_reason"] if r["name"] == "hlt")
assert hlt["incomplete"] == 2 and hlt["unknown_ns"] == unknown_all, \
    (hlt["incomplete"], hlt["unknown_ns"], unknown_all)
assert checked == 3, checked
print("woken again: %d exits, %d ns not known, as the oracle says" % (checked, unknown_all))
PY
# the text: the first exit's wait is 5 us behind idle, incomplete, not 9 us
grep -q 'why: 10.10 us = wakeup 5.000 us (idle) + kvm 4.200 us + blocked 900 ns woken by bash (pid 500)' w.v ||
	fail "the first exit's why line"
grep -A0 'why: 10.10 us' w.v | grep -q 'incomplete' || fail "the first exit not incomplete"
exit 0
