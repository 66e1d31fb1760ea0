#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How the causes name tasks (common/whyfmt.c, common/reportwhy.c). One exit of vCPU thread
# 100, preempted by task h (pid 300) and then by thread 101, built by hand, with and
# without a VM map (web1/vcpu0 = 100, db1/vcpu1 = 101): with the map, thread 101 is named as the vCPU tables name it wherever a cause or a
# window names it (the why lines, -v --why, the culprits, the page), and the worst window's
# line is headed by web1/vcpu0; without it, by its comm and pid. A why line shows the parts,
# largest first, as long as they fit with the tail that sums the others ("+ 1 more 500
# ns"), as worked out again here from every part (--wide's why line).
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
for m in vm novm; do
	python3 - "$m" >"$m.txt" <<'PY'
import sys
L = []
if sys.argv[1] == "vm":
    L += ["meta vm.count 2", "meta vm.0.name web1", "meta vm.0.pid 900",
          "meta vm.0.vcpus 100:0", "meta vm.1.name db1", "meta vm.1.pid 901",
          "meta vm.1.vcpus 101:1"]
sw = "ctx 1 %d sched:sched_switch 0 %d prev_comm=%s prev_pid=%d prev_state=%d " \
     "next_comm=%s next_pid=%d"
L += ["cpus 1", "stats 1 0 0",
      "context sched:sched_switch,sched:sched_waking,irq:irq_handler_entry,irq:irq_handler_exit",
      sw % (5000, 0, "swapper/1", 0, 0, "vA", 100), "exit 1 10000 100 0x72 0",
      sw % (10100, 100, "vA", 100, 0, "h", 300), sw % (10800, 300, "h", 300, 0, "vB", 101),
      sw % (11300, 101, "vB", 101, 1, "vA", 100),
      "ctx 1 11400 irq:irq_handler_entry 8 100 irq=24 name=eth0",
      "ctx 1 11700 irq:irq_handler_exit 8 100 irq=24 ret=1",
      "entry 1 11900 100 0", "other 1 20000"]
print("\n".join(L))
PY
	"$HELPERS/mkvmt" "$FMT" "$m.vmt" <"$m.txt" || fail "mkvmt $m"
	vmtrace-report "$m.vmt" >"$m.out" || fail "report $m"
	vmtrace-report --wide "$m.vmt" >"$m.wide" || fail "report --wide $m"
	vmtrace-report --json "$m.vmt" >"$m.json" || fail "report --json $m"
	widths_ok "$m.out" || fail "$m: lines over 120 columns"
	python3 - "$m" "$top_srcdir/tests/helpers" <<'PY' || fail "$m: the names"
import json, re, sys
m = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from latfmt import lat
text, wide, d = open(m + ".out").read(), open(m + ".wide").read(), json.load(open(m + ".json"))
vm = m == "vm"
b = "db1/vcpu1 (pid 101)" if vm else "vB (pid 101)"
# every part, largest first: h 700, thread 101 500, kvm 400 (100 + 100 + 200), eth0 300
parts = [("preempted 700 ns by h (pid 300)", 700), ("preempted 500 ns by " + b, 500),
         ("kvm 400 ns", 400), ("irq 300 ns (eth0)", 300)]
full = "1.900 us = " + " + ".join(p for p, _ in parts)
assert re.search(r"^ +why: %s$" % re.escape(full), wide, re.M), wide
# the culprits: the JSON keeps the comm, the text names the vCPU as its tables do
cul = {c["pid"]: c for c in d["culprits"]}
assert (cul[101]["name"], cul[101]["total_ns"]) == ("vB", 500), cul
row = [l.split() for l in text.split("\n") if re.match(r"^  preempted +\S+ +101 ", l)]
assert row and row[0][1] == ("db1/vcpu1" if vm else "vB"), row
assert ("vB" in text) != vm, "vB named despite the map" if vm else "vB not named"
def fit(head):
    """head, then the parts that fit in 120 columns with the tail that sums the rest"""
    line, budget, shown, rest = "1.900 us =", 120 - len(head), 0, []
    for i, (p, ns) in enumerate(parts):
        after = parts[i + 1:]
        tail = len(" + %d more %s" % (len(after), lat(sum(n for _, n in after)))) if after else 0
        if shown and (rest or len(line) + 3 + len(p) + tail > budget):
            rest.append(ns)
            continue
        line += (" + " if shown else " ") + p
        shown += 1
    if rest:
        line += " + %d more %s" % (len(rest), lat(sum(rest)))
    return head + line, shown
# the worst window, headed as the vCPU tables name the task; the longest exit's why line
head = "  %s at 0.000000000 s: " % ("web1/vcpu0 (pid 100)" if vm else "pid 100")
win = text[text.index("\nWorst window"):].split("\n")[2]
want, shown = fit(head)
assert win == want and shown == 1, (win, want)
why = [l for l in text.split("\n") if l.startswith("      why: ")]
want, shown = fit("      why: ")
assert why == [want] and shown == 3 - vm, (why, want)
print(m, "window:", win)
PY
done
# -v --why and the page name the mapped vCPU thread too
vmtrace-report -v --why vm.vmt >v.out || fail "-v --why"
grep -q "why: 1.900 us = preempted 700 ns by h (pid 300) + preempted 500 ns by db1/vcpu1 (pid 101) + 2 more 700 ns$" v.out ||
	fail "-v --why: $(grep 'why:' v.out)"
vmtrace-report --html vm.html vm.vmt >/dev/null || fail "--html"
grep -q '<tr data-kind="preempted" data-pid="101"[^>]*><td class="l">preempted</td><td class="l">db1/vcpu1</td>' vm.html ||
	fail "the page's culprits"
exit 0
