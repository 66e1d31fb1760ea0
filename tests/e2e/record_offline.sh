#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --vm without -p traces the CPUs the vCPU threads may run on: a set the recorder works
# out itself, which can name CPUs that are offline (an unpinned thread may run on every
# possible CPU). Those are left out with one line, and only a set with no online CPU left
# is refused; a list given with -p is still refused when a CPU of it is offline.
# No CPU of this machine is taken offline: VMTRACE_CPU_ONLINE names a file read instead of
# /sys/devices/system/cpu/online. The VM is a process with a thread named as QEMU names
# its vCPU threads ("CPU 0/KVM", what common/vmfind looks for); no /dev/kvm is needed.
. "$(dirname "$0")/lib.sh"
need_tracefs

cat >vmm.py <<'PY'
import sys, threading, time
def vcpu():
    with open("/proc/self/task/%d/comm" % threading.get_native_id(), "w") as f:
        f.write("CPU 0/KVM")
    print(threading.get_native_id(), flush=True)
    time.sleep(120)
threading.Thread(target=vcpu, daemon=True).start()
time.sleep(120)
PY
python3 vmm.py >tid.txt &
vmm=$!
cleanup_hooks="$cleanup_hooks; kill $vmm 2>/dev/null"
for _ in $(seq 200); do
	[ -s tid.txt ] && break
	sleep 0.05
done
tid=$(cat tid.txt)
[ -n "$tid" ] || fail "the fake VMM did not start"
allowed() { awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$vmm/task/$tid/status"; }

rec() {	# rec ONLINE ARGS...: a short recording of the pair with ONLINE as the online CPUs
	echo "$1" >online
	shift
	VMTRACE_CPU_ONLINE=$scratch/online run vmtrace-record -s 0.3 -e "$SYSCALL_EVENTS" \
		--context none "$@"
}
traced() { json out.json '",".join(str(c) for c in d["cpus"])'; }

# The thread may run on CPUs 0-1 (unpinned here: every CPU), CPU 0 "offline": CPU 1 alone
# is traced, the line says CPU 0 was left out; the collector has no free CPU left.
taskset -p -c 0-1 "$tid" >/dev/null || fail "taskset"
[ "$(allowed)" = 0-1 ] || fail "the vCPU thread may run on $(allowed), not 0-1"
rec 1 --vm "$vmm" -o a.vmt
expect_rc 0 "--vm, CPU 0 offline"
grep -qx "vmtrace-record: left out offline CPU 0 of the CPUs the vCPU threads may run on (0-1)" \
	err.txt || { cat err.txt >&2; fail "no line saying CPU 0 was left out"; }
unfold err.txt | grep -q "^vmtrace-record: recording .* on CPU 1 (collector unpinned," ||
	{ cat err.txt >&2; fail "not CPU 1 alone traced"; }
# the fake vCPU sleeps: no event, and the warning saying so fits the width too
widths_ok err.txt out.txt || fail "lines wider than 120 columns (above)"
vmtrace-report --json a.vmt >out.json 2>/dev/null || fail "report a.vmt"
[ "$(traced)" = 1 ] || fail "the file says CPUs $(traced) were traced, not 1"

# Online CPUs beyond the set: nothing left out, no line about it.
rec 0-1 --vm "$vmm" -c 0 -o b.vmt
expect_rc 0 "--vm, every CPU online"
! grep -q "left out" err.txt || { cat err.txt >&2; fail "CPUs left out, none is offline"; }
vmtrace-report --json b.vmt >out.json 2>/dev/null || fail "report b.vmt"
[ "$(traced)" = 0,1 ] || fail "the file says CPUs $(traced) were traced, not 0,1"

# Pinned to CPU 1, which is "offline": nothing to trace, one line, 64, no file.
taskset -p -c 1 "$tid" >/dev/null || fail "taskset"
ls /sys/kernel/tracing/instances >instances.before
rec 0 --vm "$vmm" -o c.vmt
expect_rc 64 "--vm, its only CPU offline"
# what was found, then the error
[ "$(grep -vc "^vmtrace-record: VM $vmm: " err.txt)" = 1 ] ||
	{ cat err.txt >&2; fail "not one line"; }
expect_one_line_error vmtrace-record \
	"no CPU to trace: the CPUs the vCPU threads may run on (1) are all offline (online: 0)\$"
[ ! -e c.vmt ] || fail "a file for nothing traced"
ls /sys/kernel/tracing/instances | diff instances.before - || fail "instances changed"

# -p names the CPUs: one of them offline is still the command line's error.
rec 1 -p 0-1 -o d.vmt
expect_rc 64 "-p 0-1, CPU 0 offline"
expect_one_line_error vmtrace-record "CPU 0 is not online (online: 1)\$"
rec 1 -p 0-1 --vm "$vmm" -o d.vmt
expect_rc 64 "-p 0-1 --vm, CPU 0 offline"
expect_one_line_error vmtrace-record "CPU 0 is not online (online: 1)\$"
[ ! -e d.vmt ] || fail "a file for a refused -p"
exit 0
