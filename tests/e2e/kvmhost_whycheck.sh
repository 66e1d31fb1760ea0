#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks of the KVM host "why" scenario (tests/kvmhost/whycheck.py, used by
# tests/e2e/kvmhost_why.sh) on hand-made files, no QEMU: a breakdown that is right passes
# (also with an exit preempted by the other VM's process tearing its VM down), and each
# way of being wrong fails - preempted by the wrong task, an I/O exit without its
# user-space part or missing, parts that do not add up, a HLT that slept without a wake-up
# or woken by a task (a kworker's, as KVM's kvmclock update work kicks, now and then),
# too few long exits preempted by the other VM, two long HLTs of a VM that slept but went
# mostly to kvm (one is a tolerated stall), the JSON disagreeing with the CSV, a worst
# window or a culprit table that does not add up - and output without attribution skips.
# The fixture (tests/kvmhost/fixtures/why.tsv) is in text2why's layout, made into the CSV
# and JSON the tools are to write by tests/kvmhost/whyfixture.py; the exit counts' check
# runs on a CSV made here from the workloads' own numbers.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
K="$top_srcdir/tests/kvmhost"
F="$K/fixtures"
TICK=4000000

# make NAME [PYTHON]: NAME.csv and NAME.json from the fixture, the TSV lines edited first by
# PYTHON (a statement on `lines`, a list of lists of strings).
make() {
	python3 - "$F/why.tsv" "$1.tsv" "${2:-pass}" <<'PY' || fail "editing the fixture for $1"
import sys
KINDS = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
lines = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def row(task, reason, n=0):
    """The n-th X line of task with reason."""
    return [l for l in lines if l[0] == "X" and l[2] == task and l[3] == reason][n]
def move(l, src, dst, ns):
    """ns from kind src to kind dst, in the kinds and in the parts."""
    i, j = 5 + KINDS.index(src), 5 + KINDS.index(dst)
    l[i] = str(int(l[i]) - ns)
    l[j] = str(int(l[j]) + ns)
    # kind/pid/name/ns, and names may hold slashes ("CPU 0/KVM")
    parts = [p.split("/", 2)[:2] + p.split("/", 2)[2].rsplit("/", 1) for p in l[17].split(";")]
    for p in parts:
        if p[0] == src and int(p[3]) >= ns:
            p[3] = str(int(p[3]) - ns)
            break
    parts.append([dst, "-1", "", str(ns)])
    l[17] = ";".join("/".join(p) for p in parts if p[3] != "0")
exec(sys.argv[3])
open(sys.argv[2], "w").write("".join("\t".join(l) + "\n" for l in lines))
PY
	python3 "$K/whyfixture.py" "$1.tsv" $TICK "$1.csv" "$1.json" || fail "whyfixture $1"
}

check() {	# check NAME [ARGS]: whycheck on NAME.csv/.json; $rc, output in NAME.out
	name=$1
	shift
	python3 "$K/whycheck.py" why --csv "$name.csv" --json "$name.json" --tick-ns $TICK "$@" \
		"$F/why-a.txt" "$F/why-b.txt" >"$name.out" 2>&1
	rc=$?
}

expect() {	# expect NAME RC PATTERN: the check ended with RC and said PATTERN
	[ "$rc" = "$2" ] || { cat "$1.out" >&2; fail "$1: whycheck exit $rc, expected $2"; }
	grep -q "$3" "$1.out" || { cat "$1.out" >&2; fail "$1: no '$3' in whycheck's output"; }
}

make good
check good
expect good 0 "all checks pass"
grep -q "a: 6 exits longer than a tick (4000000 ns): 5 never slept, of which 4 mostly" good.out ||
	{ cat good.out; fail "good: the long exits were not classified as made"; }

# A long exit preempted mostly by a kworker, not by the other VM.
make kworker 'l = row("101", "cpuid", 1); l[15] = "kworker/1:0"; l[16] = "22"
l[17] = l[17].replace("preempted/201/", "preempted/22/")'
check kworker
expect kworker 1 "FAIL: a: 1 of 5 exits longer than a tick preempted most by another task than the other VM.s vCPU thread 201"

# Once the other VM's run is over, its main thread tears the VM down (the process's pid):
# that may preempt (the stall becomes such an exit).
make teardown 'l = row("101", "cpuid", 2); move(l, "kvm", "preempted", 4800000)
l[17] = l[17].replace("preempted/-1//", "preempted/200/kvmload/")
l[14:17] = ["preempted", "kvmload", "200"]'
check teardown
expect teardown 0 "all checks pass"

# An I/O exit whose user-space handling went to kvm.
make nouser 'move(row("201", "io", 1), "userspace", "kvm", 240000)'
check nouser
expect nouser 1 "b: 1 of 2 io exits without a userspace part"

# Less than the workload's spin outside kvm.
make short 'move(row("101", "io"), "userspace", "kvm", 100000)'
check short
expect short 1 "a: 1 io exits with less than 200000 ns outside kvm"

# An I/O exit missing.
make noio 'lines.remove(row("201", "io"))'
check noio
expect noio 1 "b: 1 io exits with a breakdown, workload 2"

# Parts that do not add up to the latency (in the CSV: the JSON is made from the parts).
make badsum 'l = row("101", "cpuid"); l[5] = str(int(l[5]) + 1)'
check badsum
expect badsum 1 "1 exits whose parts do not add up to their latency"

# A HLT that slept but whose wake-up went to kvm.
make nowake 'move(row("201", "hlt", 2), "wakeup", "kvm", 90000)'
check nowake
expect nowake 1 "b: a hlt exit blocked without a wake-up"

# Woken by a task instead of the timer interrupt (the culprit: the sleep, named by its
# waker).
make taskwake 'l = row("101", "hlt"); l[16] = "55"'
check taskwake
expect taskwake 1 "a: a hlt exit woken by a task, not the timer interrupt"

# KVM kicks every vCPU from a workqueue now and then: one HLT of two woken by a kworker
# passes, both fail.
make kwake 'l = row("101", "hlt"); l[15] = "kworker/1:2"; l[16] = "94"'
check kwake
expect kwake 0 "all checks pass"
make kwake2 'for n in (0, 1):
    l = row("101", "hlt", n); l[14:17] = ["blocked", "kworker/1:2", "94"]'
check kwake2
expect kwake2 1 "a: 2 of 2 hlt exits woken by a kworker"

# The wait after a wake-up is named after the CPU's holder: the other VM's vCPU thread
# passes (the fixture's a has one), idle passes, another task in one HLT of two passes (a
# stall), in both fails.
make behind 'row("101", "hlt")[14:17] = ["wakeup", "idle", ""]'
check behind
expect behind 0 "all checks pass"
make behind2 'for n in (0, 1):
    row("101", "hlt", n)[14:17] = ["wakeup", "sshd", "77"]'
check behind2
expect behind2 1 "a: 2 of 2 hlt exits waited after their wake-up behind another task"

# Two stalls of five: fewer than four in five long exits mostly preempted by the other VM.
make stalls 'move(row("101", "npf"), "preempted", "kvm", 4900000)'
check stalls
expect stalls 1 "a: only 3 of 5 exits longer than a tick mostly preempted"

# A long HLT that slept but whose time went mostly to kvm (a stall of QEMU's emulated CPU):
# one is tolerated, two of a VM's two are not.
longer() {	# longer TIME NS: the python that makes the exit at TIME NS longer, in kvm
	echo "l = [l for l in lines if l[0] == 'X' and l[1] == '$1'][0]
l[17] = l[17].replace('kvm/-1//%s;' % l[5], 'kvm/-1//%d;' % (int(l[5]) + $2))
l[4], l[5] = str(int(l[4]) + $2), str(int(l[5]) + $2)"
}
make onestall "$(longer 4000000 5125000)"
check onestall
expect onestall 0 "all checks pass"
grep -q "b: a long exit that slept, mostly something else: hlt exit of task 201 at [0-9]* ns, 6000000 ns" \
	onestall.out || { cat onestall.out; fail "onestall: the stall was not noted"; }
make twostalls "$(longer 4000000 5125000)
$(longer 28000000 3500000)"
check twostalls
expect twostalls 1 "FAIL: b: 2 of 2 long exits that slept were mostly something else"

# The JSON breaks an exit down differently from the CSV.
make disagree
python3 - disagree.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = [e["why"] for e in d["over_threshold"] if e["why"]["irq_ns"] >= 1000][0]
w["kvm_ns"] += 1000
w["irq_ns"] -= 1000
for p in w["parts"]:
    if p["kind"] == "irq":
        p["ns"] -= 1000
    if p["kind"] == "kvm":
        p["ns"] += 1000
json.dump(d, open(sys.argv[1], "w"))
PY
check disagree
expect disagree 1 "the JSON and the CSV break the same exit down differently"

# A worst window whose breakdown does not add up to its sum.
make window
sed -i 's/"max_window_sum_ns": 1000000/"max_window_sum_ns": 999999/' window.json
check window
expect window 1 "worst_window_why does not add up to max_window_sum_ns 999999"

# A culprit table led by somebody else.
make culprits
python3 - culprits.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["culprits"].insert(0, {"kind": "preempted", "name": "stress", "pid": 77, "count": 3,
                         "total_ns": 10 ** 9, "max_ns": 4 * 10 ** 8})
json.dump(d, open(sys.argv[1], "w"))
PY
check culprits
expect culprits 1 "the largest preempting culprit is not a vCPU thread"

# The reasons' breakdown does not add up to their totals.
make byreason
python3 - byreason.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["why_by_reason"][0]["nmi_ns"] += 7
json.dump(d, open(sys.argv[1], "w"))
PY
check byreason
expect byreason 1 "does not add up to the reason's total"

# No attribution in the tools yet: skip, saying why.
make none
python3 - none.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("why_by_reason", "culprits", "context_events"):
    del d[k]
for e in d["top"] + d["over_threshold"]:
    del e["why"]
del d["over_threshold"]
json.dump(d, open(sys.argv[1], "w"))
PY
check none
expect none 77 "SKIP: the report has no attribution yet"
make nocols
cut -d, -f1-13 nocols.csv >nocols.tmp && mv nocols.tmp nocols.csv
check nocols
expect nocols 77 "SKIP: the CSV has no why columns"

# A file without context events: skip, or fail when the recorder should have stored them.
make noctx
python3 - noctx.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["top"] + d["over_threshold"]:
    e["why"] = None
d["why_note"] = "the recording has no context events"
json.dump(d, open(sys.argv[1], "w"))
PY
check noctx
expect noctx 77 "SKIP: the recording has no context events"
check noctx --require-context
expect noctx 1 "FAIL: the recording has no context events"

# The exit counts: each vCPU thread's exits per reason against its workload's own numbers.
counts_csv() {	# counts_csv NAME [PYTHON]: NAME.csv for the fixture workloads, edited by PYTHON
	python3 - "$1.csv" "${2:-pass}" <<'PY' || fail "making the counts CSV"
import sys
rows = []
def add(task, reason, n):
    rows.extend([[task, reason, "12000"]] * n)
# irqchip workloads: npf = MMIO writes but the open last + APIC timer writes + EOIs + touches
for task, hlt, npf in (("101", 2, 1 + 1 + 2 + 3), ("201", 3, 1 + 1 + 2)):
    add(task, "cpuid", 400); add(task, "io", 2); add(task, "hlt", hlt); add(task, "npf", npf)
add("101", "interrupt", 9)
exec(sys.argv[2])
with open(sys.argv[1], "w") as f:
    f.write("task,reason,latency_ns\n")
    f.writelines(",".join(r) + "\n" for r in rows)
PY
}
counts() {	# counts NAME: $rc, output in NAME.out
	python3 "$K/whycheck.py" counts "$1.csv" "$F/why-a.txt" "$F/why-b.txt" >"$1.out" 2>&1
	rc=$?
}
counts_csv cgood
counts cgood
expect cgood 0 "all checks pass"
counts_csv ccpuid 'rows.remove(["201", "cpuid", "12000"])'
counts ccpuid
expect ccpuid 1 "b: cpuid exits 399, workload 400"
counts_csv chlt 'add("101", "hlt", 1)'
counts chlt
expect chlt 1 "a: hlt exits 3, the guest counted 2"
counts_csv cnpf 'add("201", "npf", 7)'
counts cnpf
expect cnpf 1 "b: npf exits 11"
counts_csv cother 'add("300", "cpuid", 1)'
counts cother
expect cother 1 "exits of other tasks in the file: \[300\]"
exit 0
