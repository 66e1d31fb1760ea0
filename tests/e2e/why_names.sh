#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How the causes name tasks (common/whyfmt.c, common/reportwhy.c). One exit of vCPU thread
# 100, preempted by task h (pid 300) and then by thread 101, built by hand, with and
# without a VM map (web1/vcpu0 = 100, db1/vcpu1 = 101): with the map, thread 101 is named as the vCPU tables name it wherever a cause or a
# window names it (the why lines, -v --why, the culprits, the page), and the worst window's
# line is headed by web1/vcpu0; without it, by its comm and pid.
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
L += ["cpus 1", "stats 1 0 0", "context sched:sched_switch,sched:sched_waking",
      sw % (5000, 0, "swapper/1", 0, 0, "vA", 100), "exit 1 10000 100 0x72 0",
      sw % (10100, 100, "vA", 100, 0, "h", 300), sw % (10800, 300, "h", 300, 0, "vB", 101),
      sw % (11300, 101, "vB", 101, 1, "vA", 100), "entry 1 11900 100 0", "other 1 20000"]
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
# every part, largest first: kvm 700 (100 + 600), h 700, thread 101 500
parts = [("kvm 700 ns", 700), ("preempted 700 ns by h (pid 300)", 700),
         ("preempted 500 ns by " + b, 500)]
full = "1.900 us = " + " + ".join(p for p, _ in parts)
assert re.search(r"^ +why: %s$" % re.escape(full), wide, re.M), wide
# the culprits: the JSON keeps the comm, the text names the vCPU as its tables do
cul = {c["pid"]: c for c in d["culprits"]}
assert (cul[101]["name"], cul[101]["total_ns"]) == ("vB", 500), cul
row = [l.split() for l in text.split("\n") if re.match(r"^  preempted +\S+ +101 ", l)]
assert row and row[0][1] == ("db1/vcpu1" if vm else "vB"), row
assert ("vB" in text) != vm, "vB named despite the map" if vm else "vB not named"
# the worst window: headed as the vCPU tables name the task
head = "  %s at 0.000000000 s: " % ("web1/vcpu0 (pid 100)" if vm else "pid 100")
win = text[text.index("\nWorst window"):].split("\n")[2]
assert win.startswith(head + "1.900 us = kvm 700 ns + preempted 700 ns by h (pid 300)"), win
print(m, "window:", win)
PY
done
# -v --why and the page name the mapped vCPU thread too
vmtrace-report -v --why vm.vmt >v.out || fail "-v --why"
grep -q "why: 1.900 us = kvm 700 ns + preempted 700 ns by h (pid 300) + preempted 500 ns by db1/vcpu1 (pid 101)$" v.out ||
	fail "-v --why: $(grep 'why:' v.out)"
vmtrace-report --html vm.html vm.vmt >/dev/null || fail "--html"
grep -q '<tr data-kind="preempted" data-pid="101"[^>]*><td class="l">preempted</td><td class="l">db1/vcpu1</td>' vm.html ||
	fail "the page's culprits"
exit 0
