#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The "other" part of an exit's causes (common/attrib.c: an exit names at most 16 parts, the
# smallest of a kind merged into its "other"): exits preempted by 20 and by 18 tasks, built
# by hand, each task's time known, and one by 44 short tasks and then a long one (past the
# 40 parts told apart while an exit goes on, the late long one must keep its name). The JSON keeps every preempting task's time, named or in
# "other", and its culprits keep the "other" row; the text's Culprits table ranks tasks and
# interrupts only, never "other" (no task), and says under it how much time went there; so
# does the HTML page. Past the culprits the table keeps, the least go to "other", never a
# late large one.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
python3 - <<'PY'
ctx = ("sched:sched_switch,sched:sched_waking,irq:irq_handler_entry,irq:irq_handler_exit,"
       "irq:softirq_entry,irq:softirq_exit,nmi:nmi_handler,kvm:kvm_userspace_exit,"
       "syscalls:sys_enter_ioctl")
lines = ["cpus 1", "context " + ctx, "exit 1 1000 100 0x72 0", "entry 1 1500 100 0"]
truth = []                       # per exit: {hog pid: ns it preempted the vCPU}
t = 2000
for nhogs, base, size in ((20, 300, lambda k: 100 * k), (18, 400, lambda k: 100 * k),
                          (45, 500, lambda k: 5000 if k == 45 else 9 + k)):
    lines.append("exit 1 %d 100 0x72 0" % t)
    t += 100
    hogs = {}
    for k in range(1, nhogs + 1):
        pid = base + k
        lines.append("ctx 1 %d sched:sched_switch 0 100 prev_comm=vcpu prev_pid=100 "
                     "prev_state=0 next_comm=hog%d next_pid=%d" % (t, pid, pid))
        t += size(k)
        hogs[pid] = size(k)
        lines.append("ctx 1 %d sched:sched_switch 0 %d prev_comm=hog%d prev_pid=%d "
                     "prev_state=0 next_comm=vcpu next_pid=100" % (t, pid, pid, pid))
        t += 50
    lines.append("entry 1 %d 100 0" % (t + 50))
    t += 10000
    truth.append(hogs)
open("many.txt", "w").write("\n".join(lines) + "\n")
import json
json.dump(truth, open("truth.json", "w"))
PY
"$HELPERS/mkvmt" "$FMT" many.vmt <many.txt || fail mkvmt
vmtrace-report --json --top 3 many.vmt >many.json || fail "--json"
vmtrace-report many.vmt >many.txt || fail "text"
vmtrace-report --html many.html many.vmt >/dev/null || fail "--html"
widths_ok many.txt || fail "lines over 120 columns"

python3 - many.json many.txt many.html truth.json "$top_srcdir/tests/helpers" <<'PY' || fail "other"
import json, re, sys
sys.path.insert(0, sys.argv[5])
from latfmt import lat
d, text, page = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), open(sys.argv[3]).read()
truth = [{int(k): v for k, v in h.items()} for h in json.load(open(sys.argv[4]))]
# the JSON: each preempting task's time named exactly, or in its exit's "other"
merged = 0
tops = sorted((t for t in d["top"] if t["why"]["preempted_ns"]), key=lambda t: t["time_ns"])
assert len(tops) == 3, d["top"]
for t, hogs in zip(tops, truth):
    parts = t["why"]["parts"]
    assert len(parts) <= 16, len(parts)
    named = {p["pid"]: p["ns"] for p in parts if p["kind"] == "preempted" and p["pid"]}
    other = [p for p in parts if p["name"] == "other"]
    assert all(hogs[pid] == ns for pid, ns in named.items()), named
    rest = sum(ns for pid, ns in hogs.items() if pid not in named)
    assert len(other) == 1 and other[0]["kind"] == "preempted" and other[0]["pid"] is None
    assert other[0]["ns"] == rest, (other[0], rest)
    # the smallest are merged: every named task took at least as long as any merged one
    assert min(named.values()) >= max(ns for pid, ns in hogs.items() if pid not in named)
    # the culprit is a task, never "other"
    assert t["why"]["culprit"]["pid"] == max(hogs, key=hogs.get), t["why"]["culprit"]
    merged += rest
# the JSON's culprits keep "other", with the time merged in both exits
cul = d["culprits"]
oth = [c for c in cul if c["name"] == "other" and c["pid"] is None]
assert len(oth) == 1 and oth[0]["kind"] == "preempted" and oth[0]["total_ns"] == merged and \
    oth[0]["count"] == 3, (oth, merged)
ranked = [c for c in cul if c not in oth]
# the text: the table ranks the others in the JSON's order, then says where "other" went
sec = text[text.index("\nCulprits") + 1:].split("\n\n")[0].split("\n")
assert sec[0] == "Culprits (what took the most time from vCPU tasks, top 10):", sec[0]
rows = [l.split() for l in sec[2:] if not l.startswith("  (")]
want = [[c["kind"], c["name"], str(c["pid"]), str(c["count"])] + lat(c["total_ns"]).split() +
        lat(c["max_ns"]).split() for c in ranked[:10]]
assert rows == want, (rows, want)
assert not any("other" in l for l in sec[1:-1]), "an other row in the table"
assert sec[-1] == '  (not ranked: "other", %s of preempted time in 3 exits, the parts too ' \
    'many to name one by one)' % lat(merged), sec[-1]
# the why lines name it as a part
assert re.search(r"\+ \d+ more|preempted [0-9.]+ [nu]s \(other\)", text)
# the page: no "other" row, its time in the note
pids = [int(x) for x in re.findall(r'<tr data-kind="[a-z]+" data-pid="(-?\d+)"', page)]
assert -2 not in pids and pids == [c["pid"] if c["pid"] is not None else -1
                                   for c in ranked][:15], pids
m = re.search(r'id="culprits-other" data-total-ns="(\d+)"', page)
assert m and int(m.group(1)) == merged, m
print("other: %d ns in 3 exits; %d culprits ranked" % (merged, len(ranked)))
PY

# Past the 4096 culprits the table keeps: 4199 tasks preempt the vCPU for 20 ns each, then
# one for 1 ms. The quarter with the least time goes to "other" when the table is full, so
# the late one is ranked first with its exact time, and no time is lost.
python3 - <<'PY'
lines = ["cpus 1", "stats 1 0 0", "context sched:sched_switch,sched:sched_waking"]
t = 10000
for k in range(4200):
    pid, ns = 2000 + k, 1000000 if k == 4199 else 20
    lines += ["exit 1 %d 100 0x72 0" % t,
              "ctx 1 %d sched:sched_switch 0 100 prev_comm=vcpu prev_pid=100 prev_state=0 "
              "next_comm=k%d next_pid=%d" % (t + 10, k, pid),
              "ctx 1 %d sched:sched_switch 0 %d prev_comm=k%d prev_pid=%d prev_state=1 "
              "next_comm=vcpu next_pid=100" % (t + 10 + ns, pid, k, pid),
              "entry 1 %d 100 0" % (t + 20 + ns)]
    t += 2000 + ns
open("cul.txt", "w").write("\n".join(lines) + "\n")
PY
"$HELPERS/mkvmt" "$FMT" cul.vmt <cul.txt || fail mkvmt
vmtrace-report --json cul.vmt >cul.json || fail "--json, many culprits"
vmtrace-report cul.vmt >cul.out || fail "text, many culprits"
widths_ok cul.out || fail "lines over 120 columns"
python3 - cul.json cul.out <<'PY' || fail "many culprits"
import json, sys
d, text = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
cul = d["culprits"]
assert (cul[0]["name"], cul[0]["pid"], cul[0]["total_ns"], cul[0]["count"]) == \
    ("k4199", 6199, 1000000, 1), cul[0]
assert sum(c["total_ns"] for c in cul) == 4199 * 20 + 1000000
merged = d["culprits_merged"]
named = [c for c in cul if c["pid"] is not None]
assert merged > 0 and len(named) + merged == 4200 and len(named) <= 4096, (merged, len(named))
oth = [c for c in cul if c["pid"] is None]
assert len(oth) == 1 and oth[0]["total_ns"] == 20 * merged, oth
sec = text[text.index("\nCulprits") + 1:].split("\n\n")[0].split("\n")
assert sec[2].split()[:5] == ["preempted", "k4199", "6199", "1", "1.000"], sec[2]
assert sec[-1] == '  (%d culprits with the least time merged into "other" to bound the table: ' \
    'a total above may be a lower bound)' % merged, sec[-1]
PY

# a recording without "other" says nothing of it
vmtrace-report "$DATA/why/sample/kvm.vmt" >sample.txt || fail "sample"
! grep -q '"other"\|(other)' sample.txt || fail "the sample mentions other"
exit 0
