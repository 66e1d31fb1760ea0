#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A task whose pair's events carry no comm (system calls; kvm_exit carries none either) is
# named in the per-task tables by what the recording's context events called its pid
# last, "comm (pid)", and in JSON's "comm"; "- (pid)" without context events. The names
# are checked against independent readings of the same recordings: trace-cmd's own report
# of context.dat (stored with it), and the -v dump's context lines of the KVM sample.
# Slices are not used with context events: the output is the same with them asked for;
# without context events, sliced and one-pass reports name nobody, the same way.
. "$(dirname "$0")/lib.sh"

T="$DATA/tracedat"
SYS="--pair $SYSCALL_EVENTS"

# the names in trace-cmd's report of context.dat: sched_switch's prev and next, the
# wakee of sched_waking, the last one for each pid (one CPU: the report's order is time's)
zcat "$T/context.report.txt.gz" | python3 -c '
import re, sys, json
names = {}
sw = re.compile(r"sched_switch: +(.*):(\d+) \[-?\d+\] \S+ ==> (.*):(\d+) \[-?\d+\]$")
wk = re.compile(r"sched_waking: +comm=(.*) pid=(\d+) prio=")
for line in sys.stdin:
    m = sw.search(line)
    if m:
        names[int(m.group(2))] = m.group(1)
        names[int(m.group(4))] = m.group(3)
        continue
    m = wk.search(line)
    if m:
        names[int(m.group(2))] = m.group(1)
json.dump({p: n for p, n in names.items() if p > 0}, sys.stdout)
' >tracecmd.json || fail "parsing trace-cmd's report"

# check TEXT JSON NAMES.json: each task row "label (pid)" and JSON comm against the names
check() {
	python3 - "$1" "$2" "$3" <<'PY' || fail "task names of $1"
import json, re, sys
text = open(sys.argv[1]).read().split("\n")
d = json.load(open(sys.argv[2]))
names = {int(p): n for p, n in json.load(open(sys.argv[3])).items()}
# text: the per-task tables' rows, which start with the label
rows = {}
at = [i for i, l in enumerate(text) if l.startswith("Per task") or l.startswith("Per vCPU task")]
assert at, "no per-task table"
for l in text[at[0] + 2:]:
    if not l.startswith("  "):
        break
    m = re.match(r"  (.*?) \((\d+)\) ", l)
    if m and not l.startswith("  task (pid)") and not l.startswith("  vcpu (pid)"):
        rows.setdefault(int(m.group(2)), set()).add(m.group(1))
assert set(rows) == {t["pid"] for t in d["vcpus"]}, (sorted(rows), d["vcpus"])
named = 0
for t in d["vcpus"]:
    pid, want = t["pid"], names.get(t["pid"])
    if t["vcpu"] is not None:
        want = str(t["vcpu"])          # a vCPU task keeps its vCPU id as its name
    elif want is None:
        want = "-"
    else:
        named += 1
        room = 24 - len(" (%d)" % pid)  # the label column: the name cut with '~' to fit
        if len(want) > room:
            want = want[:room - 1] + "~"
    assert rows[pid] == {want}, (pid, rows[pid], want)
# JSON: every task's comm is the name, or null when the context events never gave one
for t in d["vcpus"]:
    assert t["comm"] == names.get(t["pid"]), (t["pid"], t["comm"], names.get(t["pid"]))
print(sys.argv[1], len(rows), "tasks,", named, "named")
PY
}

# 1. A syscall trace.dat with context events, against trace-cmd's names.
run vmtrace-report $SYS "$T/context.dat"
[ "$rc" = 0 ] || [ "$rc" = 2 ] || { cat err.txt; fail "report of context.dat: exit $rc"; }
mv out.txt text.txt
run vmtrace-report --json $SYS "$T/context.dat"
mv out.txt report.json
check text.txt report.json tracecmd.json
grep -q '^  syscall_loop (29698) ' text.txt || fail "the loop's row: $(grep 29698 text.txt)"
grep -q '^  - (' text.txt && fail "a task left unnamed: $(grep '^  - (' text.txt)"

# the same recording as a .vmt: the same names, and slices asked for change nothing
vmtrace-convert --to-vmt $SYS -o c.vmt "$T/context.dat" 2>/dev/null ||
	fail "--to-vmt of context.dat"
vmtrace-report c.vmt >one.txt 2>/dev/null
VMTRACE_TEST_SLICES=4 vmtrace-report --jobs 3 c.vmt >many.txt 2>/dev/null
cmp -s one.txt many.txt || { diff one.txt many.txt | head >&2; fail "c.vmt: slices differ"; }
vmtrace-report --json c.vmt >c.json 2>/dev/null
check one.txt c.json tracecmd.json

# 2. The KVM sample with context events: names from its own -v dump's context lines
# ("switch prev/pid (state) -> next/pid", "wake comm/pid ..."), the last for each pid.
W="$DATA/why/sample/kvm.vmt"
run vmtrace-report -v "$W"
expect_rc 0 "-v of the KVM sample"
python3 - out.txt >dump.json <<'PY' || fail "parsing the -v dump"
import json, re, sys
names = {}
for l in open(sys.argv[1]):
    m = re.search(r" CTX +switch (.*)/(\d+) \(.*\) -> (.*)/(\d+)$", l)
    if m:
        names[int(m.group(2))] = m.group(1)
        names[int(m.group(4))] = m.group(3)
        continue
    m = re.search(r" CTX +wak\w* (.*)/(\d+)(?: from .*)?$", l)
    if m:
        names[int(m.group(2))] = m.group(1)
assert names, "no context line"
json.dump({p: n for p, n in names.items() if p > 0}, sys.stdout)
PY
run vmtrace-report "$W"
mv out.txt text.txt
run vmtrace-report --json "$W"
mv out.txt report.json
check text.txt report.json dump.json
[ "$(json report.json '[t["comm"] for t in d["vcpus"]]')" = "['CPU 0/KVM', 'CPU 0/KVM']" ] ||
	fail "the vCPU threads' names: $(json report.json '[t["comm"] for t in d["vcpus"]]')"

# 3. No context events: nobody named, sliced or not.
S="$DATA/sample-syscalls.vmt"
vmtrace-report --jobs 1 "$S" >one.txt || fail "one pass"
VMTRACE_TEST_SLICES=5 vmtrace-report --jobs 3 "$S" >many.txt 2>many.err || fail "slices"
grep -qx 'vmtrace-report: \([2-9]\|[1-9][0-9]\+\) time slices' many.err ||
	fail "not sliced: $(cat many.err)"
cmp -s one.txt many.txt || fail "sample-syscalls: slices differ"
grep -q '^  - (18607) ' one.txt || fail "an unnamed task: $(grep 18607 one.txt | head -1)"
vmtrace-report --json "$S" >s.json
[ "$(json s.json 'set(t["comm"] for t in d["vcpus"])')" = "{None}" ] || fail "a comm from nowhere"
exit 0
