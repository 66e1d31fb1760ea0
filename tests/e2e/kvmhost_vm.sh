#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --vm on a real KVM host (tests/kvmhost/run.sh, scenario vm): two VMs like
# QEMU's under libvirt, web1 and web2, share CPU 1; the recorder gets "--vm web1", then
# web1's pid. The file must hold web1's vCPU thread alone, with exactly the exits web1
# counted for itself (web2's thread absent, though it ran on the same CPU meanwhile), the
# report must label it web1/vcpu0 (pid TID), and "vmtrace-report --vm web1" must equal the
# whole report. Skips (77) where the harness cannot run, and leaves the counts unchecked
# (SKIP) when a starved emulator ran a VM for fewer than 10 rounds.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (apt-get download, mounts in the guest)"

variant() {	# variant DIR name|pid
	dir=$1
	VMTRACE_KVMHOST_VM_BY=$2 sh "$top_srcdir/tests/kvmhost/run.sh" "$dir" max "" 2 vm \
		>"$dir.log" 2>&1
	rc=$?
	[ "$rc" = 77 ] && { cat "$dir.log"; skip "KVM host harness unavailable"; }
	[ "$rc" = 0 ] || { cat "$dir.log"; fail "--vm by $2: harness exit $rc"; }
	cat "$dir.log"
	grep -q "record exit 0" "$dir/record.txt" || { cat "$dir/record.txt"; fail "$2: record failed"; }
	grep -q -- "--vm " "$dir/record-args.txt" ||
		fail "the harness did not pass --vm: $(cat "$dir/record-args.txt")"
	tid=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "tid") print $(i + 1) }' \
		"$dir/kvmload-web1.txt")
	[ -n "$tid" ] || fail "$2: no tid in kvmload-web1.txt"
	vmtrace-report --json "$dir/kvm.vmt" >"$dir.json" || fail "$2: report"
	# A starved emulator (a loaded machine) runs the VMs for a few rounds only: the file
	# is still checked to hold web1's thread alone, its counts only from 10 rounds on.
	counts=yes
	for vm in web1 web2; do
		r=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "rounds") print $(i + 1) }' \
			"$dir/kvmload-$vm.txt")
		[ "${r:-0}" -ge 10 ] && continue
		counts=no
		skip_part "--vm by $2: the emulated host ran $vm for ${r:-0} rounds only (10" \
			"needed to check the counts)"
	done
	COUNTS=$counts python3 - "$dir.json" "$dir/kvmload-web1.txt" "$dir/kvmload-web2.txt" \
		<<'PY' ||
import json, os, sys
d = json.load(open(sys.argv[1]))
w1, w2 = (dict(zip(*[iter(open(f).read().split())] * 2)) for f in sys.argv[2:4])
rounds = int(w1["rounds"])
got = {r["name"]: r["count"] for r in d["reasons"]}
print("web1:", w1, "web2:", w2, "report:", got)
assert d["finished"] and d["lost_events"] == 0, d
tasks = {v["pid"]: v for v in d["vcpus"]}
assert set(tasks) == {int(w1["tid"])}, "tasks %s, web1's vCPU thread %s, web2's %s" % (
    sorted(tasks), w1["tid"], w2["tid"])
t = tasks[int(w1["tid"])]
assert t["vm"] == "web1" and t["vcpu"] == 0, t
assert t["pairs"] == d["pairs"]
if os.environ["COUNTS"] == "no":
    sys.exit(0)
# web1's own counts, exactly (kvmhost.sh explains each line)
assert got["cpuid"] == int(w1["cpuid"]) == 200 * rounds
assert got["io"] == int(w1["io"]) == rounds
assert got["hlt"] == rounds - 1 and d["open_at_stop"] == 1
assert int(w1["mmio"]) <= got["npf"] <= int(w1["mmio"]) + 4, got
PY
	fail "--vm by $2: the file is not web1's exits alone"
	vmtrace-report "$dir/kvm.vmt" >"$dir.txt" || fail "$2: text report"
	grep -q "web1/vcpu0 (pid $tid)" "$dir.txt" || { cat "$dir.txt"; fail "$2: no label"; }
	vmtrace-report --json --vm web1 "$dir/kvm.vmt" >"$dir-web1.json" || fail "$2: --vm web1"
	python3 - "$dir.json" "$dir-web1.json" <<'PY' || fail "$2: report --vm web1 differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(a != b)
PY
	vmtrace-report --vm web2 "$dir/kvm.vmt" >/dev/null 2>"$dir.err" && fail "$2: --vm web2 taken"
	grep -q "no VM 'web2' in this recording; it has web1" "$dir.err" ||
		fail "$2: --vm web2: $(cat "$dir.err")"
}

variant "$scratch/name" name
variant "$scratch/pid" pid
finish
