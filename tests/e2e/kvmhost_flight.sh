#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The flight recorder's --trigger-reason on a real KVM host (tests/kvmhost/run.sh, scenario
# "why": two kvmload VMs on guest CPU 1, AMD SVM under QEMU; each round 200 CPUIDs, an I/O
# exit with 200 us of user-space work, an MMIO write and a HLT that sleeps 1 ms). Without
# the option the first exit past the threshold triggers, whatever its reason (a nested
# page fault at the VMs' start, when tried). With "hlt" (a threshold of 500 us) a HLT
# triggers; with "-hlt,-npf,-cpuid" (150 us) an exit of another reason does: the I/O exits'
# work passes it every round. The triggering exit is
# found in each file's per-exit CSV (its task and latency, as the recorder named them) and
# its reason read there, the recording's own name for it.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (apt-get download, mounts in the guest)"
K="$top_srcdir/tests/kvmhost"

# flight NAME ARGS: the scenario recorded with --on-threshold ARGS; sets $reason
flight() {
	name=$1
	d="$scratch/$name"
	VMTRACE_RECORD_ARGS="--keep 1s --after 5ms $2" sh "$K/run.sh" "$d" max "" 3 why \
		>"$name.log" 2>&1
	rc=$?
	[ "$rc" = 77 ] && { cat "$name.log"; skip "KVM host harness unavailable"; }
	[ "$rc" = 0 ] || { cat "$name.log" "$d/record.txt"; fail "$name: harness exit $rc"; }
	grep -q "record exit 0" "$d/record.txt" || { cat "$d/record.txt"; fail "$name: record failed"; }
	line=$(grep "triggered" "$d/record.txt") || { cat "$d/record.txt"; fail "$name: no trigger"; }
	lat=$(echo "$line" | sed -n 's/.*: an exit of \([0-9]*\) ns (pid \([0-9-]*\),.*/\1/p')
	pid=$(echo "$line" | sed -n 's/.*: an exit of \([0-9]*\) ns (pid \([0-9-]*\),.*/\2/p')
	[ -n "$lat" ] && [ -n "$pid" ] || fail "$name: cannot read the trigger from: $line"
	vmtrace-convert --csv -o "$name.csv" "$d/kvm.vmt" || fail "$name: convert"
	reason=$(python3 - "$name.csv" "$lat" "$pid" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["latency_ns"] == sys.argv[2] and r["task"] == sys.argv[3]]
print(rows[0]["reason"] if len(rows) == 1 else "%d rows" % len(rows))
PY
)
	echo "$name: the trigger was a $reason exit of $lat ns (task $pid)"
	vmtrace-report --json "$d/kvm.vmt" >"$name.json" || fail "$name: report"
}

flight hlt "--on-threshold 500us --trigger-reason=hlt"
[ "$reason" = hlt ] || fail "--trigger-reason=hlt: a $reason exit triggered"
[ "$lat" -ge 500000 ] || fail "the HLT that triggered took $lat ns, under 500 us"
[ "$(json hlt.json 'd["trigger"]["reasons"]')" = hlt ] || fail "trigger.reasons of hlt"

flight others "--on-threshold 150us --trigger-reason=-hlt,-npf,-cpuid"
case $reason in
hlt | npf | cpuid | *rows) fail "--trigger-reason=-hlt,-npf,-cpuid: the trigger was $reason" ;;
esac
[ "$lat" -ge 150000 ] || fail "the exit that triggered took $lat ns, under 150 us"
exit 0
