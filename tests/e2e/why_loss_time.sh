#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Lost events are judged by time (common/iterate.c, common/attrib.c): a vCPU switched in
# without a wake-up in the file was woken from a CPU not traced, unless events were lost
# between its sleep and that switch-in; losses long before the sleep cannot hide its
# wake-up. Built by hand (overwritten events, on a page's flag), and the trace.dat sample
# whose only loss is at its start; the expected parts come from the scripts' and the
# dump's own time stamps.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
sw() { # cpu ts prev prevcomm state next nextcomm
	echo "ctx $1 $2 sched:sched_switch 0 $3 prev_comm=$4 prev_pid=$3 prev_state=$5" \
		"next_comm=$7 next_pid=$6"
}
{
	echo "cpus 1,2"
	echo "stats 1 0 0"
	echo "stats 2 0 10"
	echo "context sched:sched_switch,sched:sched_waking"
	sw 1 5000 0 swapper/1 0 100 vcpuA
	echo "page 2 missed 5"
	sw 2 6000 0 swapper/2 0 300 other
	# asleep 10100..14000, the loss long before: a CPU not traced, complete
	echo "exit 1 10000 100 0x78 0"
	sw 1 10100 100 vcpuA 1 0 swapper/1
	sw 1 14000 0 swapper/1 0 100 vcpuA
	echo "entry 1 14100 100 0"
	# asleep 20100..24000, events lost on CPU 2 meanwhile: not known, incomplete
	echo "exit 1 20000 100 0x78 0"
	sw 1 20100 100 vcpuA 1 0 swapper/1
	echo "page 2 missed 5"
	sw 2 22000 300 other 0 0 swapper/2
	sw 1 24000 0 swapper/1 0 100 vcpuA
	echo "entry 1 24100 100 0"
	echo "other 1 30000"
	echo "other 2 30000"
} >loss.txt
"$HELPERS/mkvmt" "$FMT" loss.vmt <loss.txt || fail mkvmt
vmtrace-report --json --top 10 loss.vmt >loss.json 2>loss.err || fail "--json"
python3 - loss.json <<'PY' || fail "losses by time"
import json, sys
top = {t["ts"]: t["why"] for t in json.load(open(sys.argv[1]))["top"]}
a, b = top[10000], top[20000]
assert not a["incomplete"], a
assert [(p["kind"], p["name"], p["ns"]) for p in a["parts"] if p["kind"] == "blocked"] == \
    [("blocked", "a CPU not traced", 14000 - 10100)], a
assert b["incomplete"] and b["blocked_ns"] == 0, b
PY

# the trace.dat sample: lost events only at 0; the futex at 0.003549847 slept from its
# switch-out to its switch-in, woken from a CPU not traced
vmtrace-report --pair raw_syscalls:sys_enter,raw_syscalls:sys_exit -v --why \
	"$DATA/tracedat/context.dat" >ctx.v 2>ctx.err || fail "context.dat"
python3 - ctx.v <<'PY' || fail "context.dat's futex"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
lost = [l for l in lines if " LOST " in l]
assert len(lost) == 1 and lost[0].split()[0] == "0.000000000", lost
i = next(i for i, l in enumerate(lines) if l.startswith("   0.003549847 cpu   1 pid   28949 BEGIN"))
out = next(l for l in lines[i:] if "switch qemu-system-x86/28949 (sleeps)" in l)
back = next(l for l in lines[i:] if re.search(r"-> qemu-system-x86/28949$", l))
end = next(j for j in range(i, len(lines)) if " pid   28949 END " in lines[j])
slept = round((float(back.split()[0]) - float(out.split()[0])) * 1e9)
why = lines[end + 1]
assert "(incomplete)" not in why, why
m = re.search(r"blocked ([0-9.]+) us woken by a CPU not traced", why)
assert m and abs(float(m.group(1)) * 1000 - slept) < 10, (why, slept)
PY
exit 0
