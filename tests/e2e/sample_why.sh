#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The causes in the bundled real KVM sample with a known truth (tests/data/why/sample/,
# made by tests/data/make-kvm-why-sample.sh on the KVM host harness): two VMs whose vCPU
# threads share one CPU, each workload's own counts beside the file. The same checks as
# tests/e2e/kvmhost_why.sh (tests/kvmhost/whycheck.py: exact exit counts per reason and
# vCPU thread; every exit's parts add up; every I/O exit has its user-space part; HLTs
# sleep and are woken; long exits are preempted by the other VM's vCPU thread; the JSON
# and the CSV agree), on every machine, without QEMU; and the text report's lines say
# the same as the JSON.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
S="$DATA/why/sample"
K="$top_srcdir/tests/kvmhost"

vmtrace-convert --csv -o exits.csv "$S/kvm.vmt" || fail "convert"
python3 "$K/whycheck.py" counts exits.csv "$S/kvmload-a.txt" "$S/kvmload-b.txt" ||
	fail "exit counts differ from the workloads' own"
tick_ns=$((1000000000 / $(cat "$S/hz")))
vmtrace-convert --csv --why -o why.csv "$S/kvm.vmt" || fail "convert --csv --why"
run vmtrace-report --json --threshold "${tick_ns}ns" "$S/kvm.vmt"
expect_rc 0 "report --json --threshold"
mv out.txt why.json
python3 "$K/whycheck.py" why --csv why.csv --json why.json --tick-ns $tick_ns \
	--halt-poll-ns "$(cat "$S/halt_poll_ns")" --require-context \
	"$S/kvmload-a.txt" "$S/kvmload-b.txt" || fail "the causes in the sample are wrong"

# The text report: each longest exit's why line is the JSON's breakdown of that exit, and
# the culprits table's first row is the JSON's first culprit.
run vmtrace-report --top 5 "$S/kvm.vmt"
expect_rc 0 "text report"
mv out.txt why.txt
run vmtrace-report --json --top 5 "$S/kvm.vmt"
python3 - why.txt out.txt <<'PY' || fail "the text's causes differ from the JSON's"
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
lines = re.findall(r"^\s*why: (.*)$", text, re.M)
assert len(lines) == len(d["top"]) == 5, (len(lines), len(d["top"]))
for line, t in zip(lines, d["top"]):
    c = t["why"]["culprit"]
    if c:
        assert c["kind"] in line and (c["name"] in line), (line, c)
        if c["pid"] is not None:
            assert "(pid %d)" % c["pid"] in line, (line, c)
top = d["culprits"][0]
assert re.search(r"^\s*%s\s+%s\s+%s\s" % (top["kind"], re.escape(top["name"]), top["pid"]),
                 text, re.M), top
PY
# The wait after a wake-up, recounted from the events (-v) in Python: from the vCPU
# thread's wake-up to its switch-in, on the CPU of that switch-in, each task that held it
# takes its time, the idle task's time is "idle", and an interrupt handler running there
# takes its own, a softirq as "softirq NAME" (not the interrupt that woke it: that one ended
# the sleep, named in the blocked part).
run vmtrace-report -v "$S/kvm.vmt"
expect_rc 0 "report -v"
mv out.txt events.txt
run vmtrace-report --json --threshold 1ms --top 0 "$S/kvm.vmt"
expect_rc 0 "report --json --threshold 1ms"
python3 - events.txt out.txt <<'PY' || fail "the wait after a wake-up is not named after the CPU's holders"
import json, re, sys
head = r"^\s*(\d+)\.(\d{9}) cpu\s+(\d+) pid\s+\d+ CTX\s+"
sw = re.compile(head + r"switch .*/(\d+) \(\w+\) -> .*/(\d+)$")
wk = re.compile(head + r"waking .*/(\d+)( from .*)?$")
fr = re.compile(head + r"(?:softirq (\S+) (entry|exit)|irq \d+ (entry) \((.*)\)|irq \d+ (exit)|"
                r"(\S+) (entry|exit) \(vector \d+\))$")
switches, wakes, cpuev = [], [], {}
for line in open(sys.argv[1]):
    m = sw.match(line)
    if m:
        ts = int(m[1]) * 10**9 + int(m[2])
        switches.append((ts, int(m[3]), int(m[4]), int(m[5])))
        cpuev.setdefault(int(m[3]), []).append((ts, "sw", int(m[4]), int(m[5])))
        continue
    m = wk.match(line)
    if m:
        wakes.append((int(m[1]) * 10**9 + int(m[2]), int(m[4])))
        continue
    m = fr.match(line)
    if m:
        ts, cpu = int(m[1]) * 10**9 + int(m[2]), int(m[3])
        if m[4]:    # a softirq is named as one: "timer" alone reads as an interrupt
            ev = (ts, m[5], "softirq " + m[4], None)
        elif m[6]:
            ev = (ts, "entry", m[7], None)
        elif m[8]:
            ev = (ts, "exit", None, None)
        else:
            ev = (ts, m[10], m[9], None)
        cpuev.setdefault(cpu, []).append(ev)
assert len(switches) > 300 and len(wakes) > 100, (len(switches), len(wakes))

def holders(cpu, w, until):
    evs = cpuev[cpu]
    first = next(e for e in evs)
    holder = first[2] if first[1] == "sw" else None
    stack, at, want = [], w, {}
    for ts, kind, a, b in evs:
        if ts > until:
            break
        if ts > w:
            k = stack[-1] if stack else ("idle" if holder == 0 else holder)
            want[k] = want.get(k, 0) + ts - max(at, w)
            at = ts
        if kind == "sw":
            holder, stack = b, []
        elif kind == "entry":
            stack.append(a)
        elif stack:
            stack.pop()
    return {k: v for k, v in want.items() if v}

d = json.load(open(sys.argv[2]))
checked = 0
for e in d["over_threshold"]:
    parts = [p for p in e["why"]["parts"] if p["kind"] == "wakeup"]
    if not parts or e["why"]["incomplete"]:
        continue
    t0, t1, pid = e["time_ns"], e["time_ns"] + e["latency_ns"], e["pid"]
    w = [ts for ts, p in wakes if p == pid and t0 <= ts <= t1]
    assert len(w) == 1, (e, w)
    ins = [s for s in switches if s[3] == pid and w[0] <= s[0] <= t1]
    assert ins, e
    want = holders(ins[0][1], w[0], ins[0][0])
    got = {}
    for p in parts:
        k = p["pid"] if p["pid"] is not None else p["name"]
        got[k] = got.get(k, 0) + p["ns"]
    assert got == want, (e["time_ns"], pid, got, want)
    checked += 1
assert checked >= 20, checked
print(checked, "waits after a wake-up named after their CPU's holders")
PY
# --wide: every part of every why line, as many as the JSON has (within 120 columns the
# smallest may be summed as "N more"; default lines stay within 120 columns)
run vmtrace-report --wide --top 30 "$S/kvm.vmt"
expect_rc 0 "wide report"
mv out.txt wide.txt
run vmtrace-report --top 30 "$S/kvm.vmt"
mv out.txt narrow.txt
run vmtrace-report --json --top 30 "$S/kvm.vmt"
python3 - wide.txt narrow.txt out.txt <<'PY' || fail "why lines of --wide"
import json, sys
wide = [l for l in open(sys.argv[1]) if l.startswith("      why: ")]
narrow = [l for l in open(sys.argv[2]) if l.startswith("      why: ")]
top = json.load(open(sys.argv[3]))["top"]
assert len(wide) == len(top) == len(narrow) == 30, (len(wide), len(top), len(narrow))
for line, t in zip(wide, top):
    assert " more " not in line, line
    assert line.count(" + ") == len(t["why"]["parts"]) - 1, (line, t["why"]["parts"])
assert all(len(l.rstrip("\n")) <= 120 for l in narrow)
assert any(" more " in l for l in narrow), "the test needs a line that is cut without --wide"
print("--wide: every part of", len(wide), "why lines")
PY
# Percentages are cut as the figures are, never rounded up (99.996 never reads 100.00):
# count% and time% per reason, and each reason's share per kind of cause, recounted from
# the JSON's integers.
run vmtrace-report "$S/kvm.vmt"
expect_rc 0 "text report"
mv out.txt text.txt
# KVM's words in the causes' sections (a syscall pair's are in record_context.sh)
for h in "Where the out-of-guest time went (share of each reason's total):" \
	"Culprits (what took the most time from vCPU tasks" "Worst window of each vCPU task,"; do
	grep -qF "$h" text.txt || fail "no heading '$h'"
done
grep -q "^  kind  *name  *pid  *exits  *total  *max\$" text.txt || fail "culprits' columns"
run vmtrace-report --json "$S/kvm.vmt"
python3 - text.txt out.txt <<'PY' || fail "percentages in the text differ from a cut recount"
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
def cut(part, total, dec):
    v = part * 100 * 10**dec // total if total else 0
    return "%d.%0*d" % (v // 10**dec, dec, v % 10**dec)
n = sum(r["count"] for r in d["reasons"])
tot = sum(r["total_ns"] for r in d["reasons"])
rows = 0
for r in d["reasons"]:
    label = "%s(0x%x)" % (r["name"], r["code"])
    m = re.search(r"^  %s +%d +(\S+) +\S+ +(\S+) " % (re.escape(label), r["count"]), text, re.M)
    assert m, label
    assert m.group(1) == cut(r["count"], n, 2) and m.group(2) == cut(r["total_ns"], tot, 2), \
        (label, m.groups(), cut(r["count"], n, 2), cut(r["total_ns"], tot, 2))
    rows += 1
kinds = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
for w in d["why_by_reason"]:
    label = "%s(0x%x)" % (w["name"], w["code"])
    total = sum(w[k + "_ns"] for k in kinds)
    m = re.search(r"^  %s +\S+ \S+((?: +\S+%%){8})" % re.escape(label), text, re.M)
    assert m, label
    got = [v.rstrip("%") for v in m.group(1).split()]
    assert got == [cut(w[k + "_ns"], total, 1) for k in kinds], (label, got)
    rows += 1
assert rows >= 10, rows
print(rows, "rows of percentages, cut")
PY
exit 0
