#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Finding a real KVM VMM by pid, by libvirt pid file and by -name on its command line, with
# vCPU threads named like QEMU's and unnamed (found inside KVM_RUN, or busy and found by
# their guest time). tests/helpers/fakevmm
# is the VMM and says for itself (gettid(), its KVM_CREATE_VCPU ids, sched_getaffinity())
# what common/vmfind must find; tests/helpers/vmfind_cli prints what it found. With root
# and tracefs, the filter it builds is given to the kernel, whose own trace says which
# threads it let through, and the kernel's filter length limit is checked.
. "$(dirname "$0")/lib.sh"

[ -c /dev/kvm ] || skip "no /dev/kvm"
[ -r /dev/kvm ] && [ -w /dev/kvm ] || skip "/dev/kvm is not usable by $(id -un)"
FAKEVMM=$HELPERS/fakevmm
CLI=$HELPERS/vmfind_cli
name=vmf$$
mkdir libvirt empty
if [ "$(nproc)" -ge 2 ]; then
	pin3=0:1:0-1
else
	pin3=0:0:0
fi

# start_vmm OUT ARGS...: fakevmm in the background until it printed its JSON line.
start_vmm() {
	out=$1
	shift
	rm -f "$out"	# a file left by an earlier VMM would pass for this one's
	"$FAKEVMM" --seconds 120 "$@" >"$out" 2>"$out.err" &
	vmm_pid=$!
	cleanup_hooks="$cleanup_hooks; kill $vmm_pid 2>/dev/null"
	for _ in $(seq 200); do
		# the whole line: with many vCPUs it may come in more than one write
		[ -s "$out" ] && [ "$(wc -l <"$out")" -ge 1 ] && return 0
		if ! kill -0 "$vmm_pid" 2>/dev/null; then
			wait "$vmm_pid"
			vrc=$?
			[ "$vrc" = 77 ] && skip "KVM cannot run a guest here: $(cat "$out.err")"
			cat "$out.err" >&2
			fail "fakevmm exited with $vrc"
		fi
		sleep 0.05
	done
	fail "fakevmm did not start"
}

stop_vmm() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# compare VMM_JSON FOUND_JSON HOW METHOD NAME INDEX_KEY: the one VM found is the VMM's own
# account, thread by thread; INDEX_KEY is "index" (QEMU's CPU n) or "kvm_id" (KVM's id).
cat >compare.py <<'EOF'
import json, sys
vmm = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
how, method, name, key = sys.argv[3:7]
def check(cond, what):
    if not cond:
        sys.exit("%s\n  fakevmm: %s\n  vmfind:  %s" % (what, json.dumps(vmm), json.dumps(got)))
check(len(got["vms"]) == 1, "one VM")
vm = got["vms"][0]
check(vm["pid"] == vmm["pid"], "pid")
check(vm["how"] == how, "found by %s" % how)
check(vm["method"] == method, "threads found by %s" % method)
check(vm["name"] == name, "name %s" % name)
want = sorted((v[key], v["tid"], v["cpus"], v["comm"]) for v in vmm["vcpus"])
have = sorted((v["vcpu"], v["tid"], v["cpus"], v["comm"]) for v in vm["vcpus"])
check(want == have, "vCPU index, tid, allowed CPUs and name of every thread")
check(not set(vmm["others"]) & {v["tid"] for v in vm["vcpus"]}, "no I/O thread")
union = sorted({c for v in vmm["vcpus"] for c in v["cpus"]})
check(vm["cpus"] == union and got["cpus"] == union, "union of allowed CPUs %s" % union)
if method == "kvm-run":
    check(vm["vcpu_fds"] == len(vmm["vcpus"]), "one kvm-vcpu fd per vCPU")
for v in vmm["vcpus"]:
    label = "%s/vcpu%d (pid %d)" % (name, v[key], v["tid"])
    check(got["labels"].get(str(v["tid"])) == label, "label %s after the metadata" % label)
EOF
compare() {
	python3 compare.py "$@" || fail "vmfind found something else (see above)"
}

find_vm() {
	run "$CLI" "$@"
	expect_rc 0 "vmfind_cli $*"
	cp out.txt found.json
}

# 1. Threads named like QEMU's, pinned, with a libvirt pid file.
start_vmm named.json -name "guest=$name,debug-threads=on" --vcpus 3 --pin "$pin3" \
	--pidfile "libvirt/$name.pid"
named_pid=$vmm_pid
[ "$(cat "libvirt/$name.pid")" = "$named_pid" ] || fail "fakevmm wrote no pid file"
find_vm "$named_pid"
compare named.json found.json pid thread-names "$name" index
find_vm --libvirt libvirt "$name"
compare named.json found.json pidfile thread-names "$name" index
find_vm --libvirt empty "$name"
compare named.json found.json cmdline thread-names "$name" index

# A name nobody has, a pid that is no VMM: one line naming the problem.
run "$CLI" --libvirt empty "$name-none"
expect_rc 1
[ "$(wc -l <err.txt)" = 1 ] || fail "error is not one line: $(cat err.txt)"
want="unknown VM '$name-none': no empty/$name-none.pid, and no process in /proc"
grep -q "^vmfind_cli: $want has -name $name-none$" err.txt || fail "unknown name: $(cat err.txt)"
run "$CLI" $$
expect_rc 1
grep -q "^vmfind_cli: pid $$ is not a VMM (no vCPU threads)$" err.txt ||
	fail "not a VMM: $(cat err.txt)"

# 2. Unnamed threads asleep in KVM_RUN (halted guests), KVM ids with gaps (0, 2, 4).
start_vmm unnamed.json -name "$name-u" --unnamed --vcpus 3 --id-stride 2 --pin "$pin3"
unnamed_pid=$vmm_pid
find_vm --libvirt empty "$name-u"
compare unnamed.json found.json cmdline kvm-run "$name-u" kvm_id
find_vm "$unnamed_pid"
compare unnamed.json found.json pid kvm-run "$name-u" kvm_id

# 2b. As nobody: named threads are found from world-readable files; unnamed ones need the
# VMM's fds, which only its owner (or root) can read, and the error says so.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir ro && cp "$CLI" ro/ && chmod 755 "$scratch" ro ro/vmfind_cli
	as_nobody() {
		(cd ro && setpriv --reuid=nobody --regid=nogroup --clear-groups ./vmfind_cli "$@") \
			>out.txt 2>err.txt
		rc=$?
	}
	as_nobody --libvirt /nonexistent "$name"
	expect_rc 0 "nobody, named threads"
	compare named.json out.txt cmdline thread-names "$name" index
	as_nobody --libvirt /nonexistent "$name-u"
	expect_rc 1
	want="VM '$name-u': pid $unnamed_pid has -name $name-u, but its vCPU threads are not"
	want="$want named and /proc/$unnamed_pid/fd is not readable: Permission denied"
	grep -qx "vmfind_cli: $want" err.txt || fail "nobody, unnamed threads: $(cat err.txt)"
	as_nobody "$unnamed_pid"
	expect_rc 1
	grep -q "^vmfind_cli: /proc/$unnamed_pid/fd: Permission denied$" err.txt ||
		fail "nobody, unnamed threads by pid: $(cat err.txt)"
else
	skip_part "the checks as nobody (need root, setpriv and a nobody user)"
fi

# 3. Both at once: two VMs, the union of their CPUs, and a filter on all six threads. One VM
# given twice by the same spec counts once; by two (a name and its pid) it is refused: the
# file keeps one name per VM.
run "$CLI" --libvirt libvirt "$name,$named_pid"
expect_rc 1
[ "$(cat err.txt)" = "vmfind_cli: $name and $named_pid are the same VM (pid $named_pid)" ] ||
	fail "one VM by two specs: $(cat err.txt)"
find_vm --libvirt libvirt "$name,$name-u,$name"
python3 - named.json unnamed.json found.json <<'EOF' || fail "two VMs"
import json, sys
a, b, got = (json.load(open(f)) for f in sys.argv[1:])
assert [v["pid"] for v in got["vms"]] == [a["pid"], b["pid"]], got["vms"]
tids = sorted(v["tid"] for vm in (a, b) for v in vm["vcpus"])
assert sorted(int(t) for t in got["labels"]) == tids, got["labels"]
assert got["cpus"] == sorted({c for vm in (a, b) for v in vm["vcpus"] for c in v["cpus"]})
assert got["filter"] and got["filter_error"] is None and len(got["filter"]) <= got["filter_max"]
EOF
cp found.json both.json

# 4. Two VMMs with the same -name.
start_vmm twin.json -name "$name-u" --vcpus 1
twin_pid=$vmm_pid
run "$CLI" --libvirt empty "$name-u"
expect_rc 1
grep -q "ambiguous VM name '$name-u'" err.txt || fail "ambiguous: $(cat err.txt)"
grep -q "$unnamed_pid" err.txt && grep -q "$twin_pid" err.txt || fail "ambiguous without pids"
stop_vmm "$twin_pid"
stop_vmm "$unnamed_pid"

# 5. Busy vCPUs (the guest never halts): found by name, or else, never asleep in KVM_RUN,
# as the threads that ran guest code: guest_time in their stat, or (where the kernel counts
# no guest time, as under kvm_pvm) a kernel stack inside kvm_vcpu_ioctl. Their vCPU ids are
# those of the kvm-vcpu fds in ascending order (fakevmm makes them in thread order, as QEMU
# does); ids 0 and 2 (--id-stride), so that the order is not the index.
# They spin on a CPU: take turns with the tests that record (tests/e2e/lib.sh).
stop_vmm "$named_pid"
exec 9>"${TMPDIR:-/tmp}/vmtrace-e2e.lock"
flock 9
busy_pin=$( [ "$(nproc)" -ge 2 ] && echo 1:1 || echo 0:0 )
start_vmm busy-unnamed.json -name "$name-b" --unnamed --busy --vcpus 2 --id-stride 2 \
	--pin "$busy_pin"
busy_pid=$vmm_pid
find_vm "$busy_pid"
python3 - busy-unnamed.json found.json <<'EOF' || fail "busy unnamed vCPUs"
import json, os, sys
vmm, got = (json.load(open(f)) for f in sys.argv[1:3])
def guest_time(tid):	# proc(5): field 43; comm may hold spaces, so count after ")"
    s = open("/proc/%d/task/%d/stat" % (vmm["pid"], tid)).read()
    return int(s[s.rindex(")") + 2:].split()[40])
vm = got["vms"][0]
truth = sorted((v["kvm_id"], v["tid"]) for v in vmm["vcpus"])
have = sorted((v["vcpu"], v["tid"]) for v in vm["vcpus"])
assert have == truth, ("found", have, "fakevmm", truth)
assert vm["vcpu_fds"] == 2 and vm["method"] in ("guest-time", "kvm-run"), vm
assert (vm["method"] == "kvm-run") == (vm["by_order"] == 0), vm
assert not set(vmm["others"]) & {v["tid"] for v in vm["vcpus"]}, "an I/O thread"
# guest time (it only grows) is counted for vCPU threads alone
others = vmm["others"] + [vmm["pid"]]
assert all(guest_time(t) == 0 for t in others), [guest_time(t) for t in others]
print("busy unnamed vCPUs: by %s, %d by order; guest_time (ticks) %s" % (
    vm["method"], vm["by_order"], {v["tid"]: guest_time(v["tid"]) for v in vmm["vcpus"]}))
EOF
stop_vmm "$busy_pid"

start_vmm busy.json -name "$name-b" --busy --vcpus 3 --pin "$busy_pin"
busy_pid=$vmm_pid
find_vm "$busy_pid"
compare busy.json found.json pid thread-names "$name-b" index

# 6. The kernel takes the filter and lets through exactly the vCPU threads: the busy ones
# make an ioctl after every exit; the VMM's main thread and its two I/O threads (tids just
# before and after the vCPUs') make system calls too and must be filtered out. And the
# longest filter the kernel takes is vmfind's limit.
T=/sys/kernel/tracing
if [ "$(id -u)" = 0 ] && [ -e "$T/events/raw_syscalls/sys_enter" ]; then
	inst=$T/instances/vmfind-e2e-$$
	mkdir "$inst" || fail "cannot make a tracefs instance"
	cleanup_hooks="$cleanup_hooks; [ -d $inst ] &&
		{ echo 0 >$inst/tracing_on; rmdir $inst; } 2>/dev/null"
	filter=$(json found.json 'd["filter"]')
	printf '%s' "$filter" >"$inst/events/raw_syscalls/sys_enter/filter" ||
		fail "the kernel refused the filter: $filter"
	echo 1 >"$inst/events/raw_syscalls/sys_enter/enable"
	sleep 0.3
	echo 0 >"$inst/tracing_on"
	cat "$inst/trace" >trace.txt
	echo "filter: $filter"
	python3 - busy.json trace.txt <<'EOF' || fail "filtered trace"
import json, re, sys
vmm = json.load(open(sys.argv[1]))
tids = {v["tid"] for v in vmm["vcpus"]}
seen = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s*(.+)-(\d+)\s+\[\d+\]", line)
    if m and not line.startswith("#"):
        seen[int(m.group(2))] = seen.get(int(m.group(2)), 0) + 1
assert seen, "no event went through"
assert set(seen) == tids, "filter let through %s, vCPU threads are %s" % (seen, tids)
assert vmm["pid"] not in seen
assert not set(vmm["others"]) & set(seen)
EOF
	max=$(json found.json 'd["filter_max"]')
	for len in "$max" $((max + 1)); do
		# a valid filter padded with spaces to exactly $len bytes
		python3 -c 'import sys; print("common_pid == 1".ljust(int(sys.argv[1])), end="")' \
			"$len" >long.txt
		if cat long.txt >"$inst/events/raw_syscalls/sys_enter/filter" 2>/dev/null; then
			got=ok
		else
			got=refused
		fi
		want=ok
		[ "$len" -gt "$max" ] && want=refused
		[ "$got" = "$want" ] ||
			fail "a filter of $len bytes: kernel $got, vmfind's limit is $max"
	done
	echo 0 >"$inst/events/raw_syscalls/sys_enter/enable"
	rmdir "$inst"
else
	skip_part "the filter given to the kernel (needs root and tracefs)"
fi
stop_vmm "$busy_pid"
finish
