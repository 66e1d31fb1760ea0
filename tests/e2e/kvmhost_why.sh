#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Why exits were long, on a real KVM host with a known truth (tests/kvmhost/run.sh, scenario
# "why"): two kvmload VMs whose vCPU threads share guest CPU 1, each with an in-kernel
# irqchip (a HLT sleeps in the host kernel until the guest's APIC timer wakes it) and
# 200 us of user-space work per I/O exit. Each workload says for itself its vCPU thread's
# id and its counts. tests/kvmhost/whycheck.py compares:
# - always: each vCPU thread's exits per reason with its workload's own counts (exact);
# - with attribution (`vmtrace-convert --csv --why`, `vmtrace-report --json --threshold`):
#   the parts of every exit add up to its latency; every io exit has a userspace part, at
#   least the workload's spin outside kvm, and their number is the workload's own; a HLT
#   that slept shows blocked with a wake-up by an interrupt (or, at most 1 in 10, by a
#   kworker: KVM's kvmclock update work kicks every vCPU), one that did not was preempted
#   or ended within KVM's halt polling (halt_poll_ns, read in the guest), but for at most 1
#   in 10, or one (the stalls below); exits longer than a scheduler tick (CONFIG_HZ of the
#   guest kernel's /boot/config-*) that never slept are preempted most by the other VM's
#   vCPU thread (its tid checked), mostly so in four of five at least (QEMU's emulated CPU
#   stalls now and then, and that time shows as whatever part was current; another task, a
#   kworker, may win at most 1 in 20); a HLT longer than a tick is mostly its sleep and the
#   wait after its wake-up (but for 1 in 10, or one) (attribution calls that wait "wakeup",
#   named after the CPU's holder: the other VM's vCPU thread or idle, but for 1 in 10); the
#   JSON and the CSV agree exit by exit; the culprits, the
#   reasons and the worst windows add up.
# Skips (77) without QEMU & co; a file without context events fails (the recorder takes
# them by default).
# VMTRACE_RECORD_ARGS passes more arguments to vmtrace-record in the guest.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (apt-get download, mounts in the guest)"
K="$top_srcdir/tests/kvmhost"
d="$scratch/why"

# what the guest said of itself when something went wrong
show() {
	cat why.log
	for f in "$d"/kvmload-*.err "$d"/record.txt "$d"/watchdog.txt; do
		[ -f "$f" ] && { echo "== $f"; cat "$f"; }
	done
}
sh "$K/run.sh" "$d" max "" 3 why >why.log 2>&1
rc=$?
[ "$rc" = 77 ] && { cat why.log; skip "KVM host harness unavailable"; }
[ "$rc" = 0 ] || { show; fail "harness exit $rc"; }
cat why.log
grep -q "record exit 0" "$d/record.txt" || { show; fail "record failed"; }
for f in "$d/kvmload-a.txt" "$d/kvmload-b.txt"; do
	[ -s "$f" ] || { show; fail "no result in $f"; }
done
vmtrace-report --json "$d/kvm.vmt" >plain.json || fail "report"
[ "$(json plain.json 'd["lost_events"]')" = 0 ] || fail "lost events"
[ "$(json plain.json 'd["finished"]')" = True ] || fail "unfinished recording"
vmtrace-convert --csv -o exits.csv "$d/kvm.vmt" || fail "convert"
python3 "$K/whycheck.py" counts exits.csv "$d/kvmload-a.txt" "$d/kvmload-b.txt" ||
	fail "exit counts differ from the workloads' own"

# The causes need a workload that ran: on a host loaded enough to starve QEMU (make -j4
# check on 2 CPUs) a VM made 12 rounds in 3 s, where 60 to 100 are usual, and its long
# exits were then mostly QEMU's stalls; at 39 and 43 rounds (make -j4 check again) 5 of
# the 29 long HLTs of one VM were still mostly stalls, where 53 and 60 rounds passed. Under
# make -j the nested host's tests now run alone (tests/machine.sh); should a VM still be
# starved (another load on the machine), the counts above hold anyway and the causes are
# left out (SKIP) below 50 rounds.
for f in "$d/kvmload-a.txt" "$d/kvmload-b.txt"; do
	rounds=$(sed -n 's/^rounds \([0-9]*\) .*/\1/p' "$f")
	[ "${rounds:-0}" -ge 50 ] ||
		skip "the emulated host ran $(basename "$f" .txt) for ${rounds:-0} rounds only" \
			"(a loaded machine): too few to check causes"
done

hz=$(sed -n 's/^CONFIG_HZ=\([0-9][0-9]*\)$/\1/p' "$d/kernel-config")
[ -n "$hz" ] || fail "no CONFIG_HZ in the guest kernel's config"
tick_ns=$((1000000000 / hz))
echo "guest kernel: CONFIG_HZ=$hz, a tick is $tick_ns ns"

vmtrace-convert --csv --why -o why.csv "$d/kvm.vmt" || fail "convert --csv --why"
vmtrace-report --json --threshold "${tick_ns}ns" "$d/kvm.vmt" >why.json ||
	fail "report --json --threshold"
# the recorder takes context events by default: a file without them fails
halt_poll=$(cat "$d/halt_poll_ns.txt" 2>/dev/null) || halt_poll=200000
python3 "$K/whycheck.py" why --csv why.csv --json why.json --tick-ns $tick_ns \
	--halt-poll-ns "${halt_poll:-200000}" --require-context "$d/kvmload-a.txt" "$d/kvmload-b.txt"
rc=$?
[ "$rc" = 77 ] && skip "no attribution to check (whycheck said why above)"
[ "$rc" = 0 ] || fail "the attribution of the why scenario is wrong (whycheck said how above)"
exit 0
