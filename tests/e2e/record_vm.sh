#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --vm on this machine: two real KVM VMMs (tests/helpers/fakevmm, busy vCPUs
# named like QEMU's, both on CPU 1), one of them found through a libvirt-style pid file.
# kvm_exit does not fire here, so the pair is raw_syscalls (a busy vCPU thread makes an
# ioctl after every exit). fakevmm says for itself which tids its vCPU threads have; the
# file must hold the pair's events of those threads only (a recording of CPU 1 without
# --vm shows the other VM's thread and the VMM's other threads are there to be filtered
# out), the map and the filter must be in it, the reports label the threads and take
# --vm, --metrics labels their series with their VM's name (and every series, with
# --label's, when the recording is of one VM), and bad --vm input is one line
# and 64 (with the --help hint when its form is wrong); two VMs of one name are told apart
# by their VMM's pid in the metrics. Busy unnamed vCPU threads are found by their guest time.
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || skip "no usable /dev/kvm"

mkdir libvirt
export VMTRACE_LIBVIRT_DIR="$scratch/libvirt"
a=vma$$
# a name too long for the end summary's VM column: cut there, its "(pid N)" kept
b=vmb$$-with-a-name-too-long-for-the-vm-column-of-the-summary

# start_vmm OUT ARGS...: fakevmm in the background until it printed its JSON line.
start_vmm() {
	out=$1
	shift
	"$HELPERS/fakevmm" --seconds 120 "$@" >"$out" 2>"$out.err" &
	vmm_pid=$!
	cleanup_hooks="$cleanup_hooks; kill $vmm_pid 2>/dev/null"
	for _ in $(seq 200); do
		[ -s "$out" ] && [ "$(wc -l <"$out")" -ge 1 ] && return 0
		if ! kill -0 "$vmm_pid" 2>/dev/null; then
			wait "$vmm_pid"
			[ "$?" = 77 ] && skip "KVM cannot run a guest here: $(cat "$out.err")"
			cat "$out.err" >&2
			fail "fakevmm did not start"
		fi
		sleep 0.05
	done
	fail "fakevmm did not start"
}

start_vmm a.json -name "guest=$a,debug-threads=on" --busy --vcpus 1 --pin 1 \
	--pidfile "libvirt/$a.pid"
a_pid=$vmm_pid
start_vmm b.json -name "$b" --busy --vcpus 1 --pin 1
b_pid=$vmm_pid
a_tid=$(json a.json 'd["vcpus"][0]["tid"]')
b_tid=$(json b.json 'd["vcpus"][0]["tid"]')

rec() {
	run vmtrace-record -c 0 -s 0.5 -e "$SYSCALL_EVENTS" "$@"
}

# The control: CPU 1 without --vm has both vCPU threads.
rec -p 1 --context none -o all.vmt
expect_rc 0 "-p 1"
run vmtrace-report --json all.vmt
mv out.txt all.json
for t in "$a_tid" "$b_tid"; do
	[ "$(json all.json "sum(v['pairs'] for v in d['vcpus'] if v['pid'] == $t)")" -gt 0 ] ||
		fail "without --vm, vCPU thread $t is not in the recording: the test proves nothing"
done

# by libvirt name (pid file) and by pid: only A's vCPU thread, on the CPU it is pinned to
for spec in "$a" "$a_pid"; do
	rec --vm "$spec" -o a.vmt
	expect_rc 0 "--vm $spec"
	how=pidfile
	[ "$spec" = "$a_pid" ] && how=pid
	said="VM $a: pid $a_pid (by $how), 1 vCPU thread(s) (by thread-names) on CPU 1"
	unfold err.txt | grep -qF "$said" ||
		{ cat err.txt >&2; fail "--vm $spec: what was found is not said"; }
	unfold err.txt | grep -q "on CPU 1 (collector CPU 0" || fail "--vm $spec: CPU 1 is not the one traced"
	run vmtrace-report --json a.vmt
	expect_rc 0 "report of --vm $spec"
	mv out.txt a-report.json
	python3 - a-report.json "$a_tid" "$a" <<'EOF' || fail "--vm $spec: the file holds other tasks"
import json, sys
d = json.load(open(sys.argv[1]))
tid, name = int(sys.argv[2]), sys.argv[3]
tasks = {v["pid"]: v for v in d["vcpus"]}
assert set(tasks) == {tid}, "tasks %s, the vCPU thread is %d" % (sorted(tasks), tid)
assert tasks[tid]["vm"] == name and tasks[tid]["vcpu"] == 0, tasks[tid]
assert d["pairs"] > 0 and d["lost_events"] == 0
EOF
	# the map and the filter are in META (stored uncompressed)
	grep -a -q "common_pid == $a_tid" a.vmt || fail "--vm $spec: no filter.pair in the file"
	grep -a -q "$a_tid:0" a.vmt || fail "--vm $spec: no vm.0.vcpus in the file"
	run vmtrace-report a.vmt
	grep -q "$a/vcpu0 (pid $a_tid)" out.txt || fail "--vm $spec: the text report has no label"
	run vmtrace-report --json --vm "$a" a.vmt
	python3 - a-report.json out.txt <<'EOF' || fail "--vm $spec: report --vm $a differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(a != b)
EOF
done
# The VM map's keys as man/vmtrace-file.5 lays them out, read by vmtmeta.py (no vmtrace
# code), against what fakevmm says of itself: its pid, its one vCPU thread (vCPU 0) pinned
# to CPU 1, found by its QEMU-style thread name; the pair filtered to that thread. Every
# META and END key of the file, and of the recording without --vm, is one the page lists.
python3 "$top_srcdir/tests/helpers/vmtmeta.py" a.vmt >meta.json || fail "vmtmeta.py a.vmt"
python3 - meta.json "$a" "$a_pid" "$a_tid" <<'EOF' || fail "the VM map's keys"
import json, sys
m = json.load(open(sys.argv[1]))["meta"]
name, pid, tid = sys.argv[2:]
want = {"vm.count": "1", "vm.0.name": name, "vm.0.pid": pid, "vm.0.vcpus": tid + ":0",
        "vm.0.cpus": "1", "vm.0.method": "thread-names", "vm.0.missing": "0",
        "filter.pair": "common_pid == " + tid}
got = {k: m.get(k) for k in want}
got.update({k: v for k, v in m.items() if k.startswith("vm.") and k not in want})
assert got == want, (got, want)
EOF
for f in a.vmt all.vmt; do
	python3 "$top_srcdir/tests/helpers/metaspec.py" "$top_srcdir/man/vmtrace-file.5" "$f" ||
		fail "$f: keys that man/vmtrace-file.5 does not list"
done

# two VMs in one file: --vm in report and convert selects each one's thread
rec --vm "$a,$b" --metrics ab.prom -o ab.vmt
expect_rc 0 "--vm $a,$b"
cp err.txt ab-rec.err
widths_ok out.txt || fail "--vm $a,$b: the summary passes 120 columns"
python3 - out.txt "$b" "$b_tid" <<'EOF' || fail "--vm $a,$b: B's label in the summary"
import re, sys
name, tid = sys.argv[2], sys.argv[3]
# the row starts with the bare pid, or "comm (pid)" when context events named the thread
rows = [l for l in open(sys.argv[1]) if re.match(r"  +(%s|\S.* \(%s\)) " % (tid, tid), l)]
assert len(rows) == 1, rows
# cut before "/vcpu0 (pid N)", which stays: it tells the VM's vCPUs apart
m = re.search(r"  (\S+)~/vcpu0 \(pid %s\)$" % tid, rows[0].rstrip("\n"))
assert m and name.startswith(m.group(1)), rows[0]
print("the summary row of B:", rows[0].rstrip())
EOF
run vmtrace-report --json ab.vmt
mv out.txt ab.json
# --metrics: the recorder's last text names each vCPU thread's VM as the file's map does:
# the two vCPU 0 are vm="A",vcpu="0" and vm="B",vcpu="0"; with the JSON's pairs, and byte
# for byte what the report writes from the file, unless records came late or were lost
# (record_metrics.sh)
vmtrace-report --openmetrics=ab-report.prom ab.vmt || fail "--openmetrics=FILE ab.vmt"
exact=1
grep -q -e "came too late" -e "lost" ab-rec.err && exact=0
python3 - ab.prom ab.json "$exact" <<'EOF' || fail "--vm $a,$b --metrics: the vm labels"
import json, re, sys
d = json.load(open(sys.argv[2]))
series = {}
for line in open(sys.argv[1]):
    if line.startswith("vmtrace_vcpu_exits_total{"):
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', line.split("}")[0]))
        series[(labels.get("vm"), labels["vcpu"])] = float(line.rsplit(" ", 1)[1])
want = {(t["vm"], "%d" % t["vcpu"]): t["pairs"] for t in d["vcpus"]}
assert len(want) == 2 and all(vm for vm, _ in want), want
assert set(series) == set(want), ("metrics", sorted(series), "JSON", sorted(want))
assert sys.argv[3] == "0" or series == want, (series, want)
print("--metrics:", sorted(series))
EOF
if [ "$exact" = 1 ]; then
	cmp ab.prom ab-report.prom ||
		{ diff ab-report.prom ab.prom | head >&2; fail "--metrics differs from the report's"; }
	echo "--metrics: byte for byte the report's"
else
	echo "--metrics: records came late or were lost: the labels compared, not the values"
fi
# --metrics of one VM with --label: every sample carries vm="A" (a per-VM file of this
# host is its own series, not the other VM's file's) and the label; the same as the
# report's --openmetrics=FILE --label of the file, byte for byte unless records came late
rec --vm "$a" --metrics a1.prom --label recorder=r1 -o a1.vmt
expect_rc 0 "--vm $a --metrics --label"
cp err.txt a1-rec.err
vmtrace-report --openmetrics=a1-report.prom --label recorder=r1 a1.vmt ||
	fail "--openmetrics=FILE --label a1.vmt"
python3 - a1.prom a1-report.prom "$a" <<'EOF' || fail "--vm $a --metrics --label: the labels"
import re, sys
for f in sys.argv[1:3]:
    n = 0
    for line in open(f):
        if line.startswith("#"):
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', line.split("}")[0]))
        assert labels.get("vm") == sys.argv[3] and labels.get("recorder") == "r1", (f, line)
        n += 1
    assert n > 20, (f, n)
print('--metrics of one VM: every sample has its vm and recorder="r1"')
EOF
if ! grep -q -e "came too late" -e "lost" a1-rec.err; then
	cmp a1.prom a1-report.prom ||
		{ diff a1-report.prom a1.prom | head >&2; fail "--metrics --label differs from the report's"; }
fi
run vmtrace-record -p 1 --label recorder=r1 -e "$SYSCALL_EVENTS"
expect_rc 64 "--label without --metrics"
expect_one_line_error vmtrace-record "--label needs --metrics FILE"
run vmtrace-record -p 1 --metrics m.prom --label 9=x -e "$SYSCALL_EVENTS"
expect_rc 64 "--label 9=x"
expect_one_line_error vmtrace-record "--label '9': a label name is letters"
for vm in "$a:$a_tid" "$b_pid:$b_tid"; do
	spec=${vm%:*}
	tid=${vm#*:}
	run vmtrace-report --json --vm "$spec" ab.vmt
	expect_rc 0 "report --vm $spec"
	want=$(json ab.json "sum(v['pairs'] for v in d['vcpus'] if v['pid'] == $tid)")
	[ "$want" -gt 0 ] || fail "two VMs: thread $tid has no pairs"
	[ "$(json out.txt "[(v['pid'], v['pairs']) for v in d['vcpus']] == [($tid, $want)]")" = True ] ||
		fail "report --vm $spec: not thread $tid's pairs alone"
	run vmtrace-convert --csv --vm "$spec" -o - ab.vmt
	expect_rc 0 "convert --vm $spec"
	python3 - out.txt "$tid" "$want" <<'EOF' || fail "convert --csv --vm $spec"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == int(sys.argv[3]), (len(rows), sys.argv[3])
assert {r["task"] for r in rows} == {sys.argv[2]}
assert len({r["vm"] for r in rows}) == 1 and rows[0]["vm"]
EOF
done
run vmtrace-report --vm nosuch ab.vmt
expect_one_line_error vmtrace-report \
	"no VM 'nosuch' in this recording; it has $a (pid $a_pid), $b (pid $b_pid)"
run vmtrace-report --vm "$a" all.vmt
expect_one_line_error vmtrace-report "no VM map"

# bad --vm: one line, 64, no file
for spec in "nosuch$$" "$$"; do
	rec --vm "$spec" -o bad.vmt
	expect_rc 64 "--vm $spec"
	what="unknown VM"
	[ "$spec" = $$ ] && what="is not a VMM"
	expect_one_line_error vmtrace-record "$what"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt >&2; fail "--vm $spec: not one line"; }
	[ ! -e bad.vmt ] || fail "--vm $spec: a file was written"
done
# bad forms of --vm are bad command lines: one line, the --help hint, 64, no file
for spec in "" 0 "$a,,$b" 2147483648; do
	rec --vm="$spec" -o bad.vmt
	expect_rc 64 "--vm='$spec'"
	case $spec in
	"") want="empty --vm" ;;
	"$a,,$b") want="--vm: empty VM name in '$a,,$b'" ;;
	*) want="--vm: bad pid '$spec' (1 to 2147483647)" ;;
	esac
	printf 'vmtrace-record: %s\nTry '\''vmtrace-record --help'\'' for more information.\n' \
		"$want" >want.txt
	cmp -s err.txt want.txt || { diff want.txt err.txt >&2; fail "--vm='$spec': the lines"; }
	[ ! -e bad.vmt ] || fail "--vm='$spec': a file was written"
done
# --vm twice: refused (the second replaced the first), the one list named
rec --vm "$a" --vm "$b" -o bad.vmt
expect_rc 64 "--vm $a --vm $b"
printf 'vmtrace-record: --vm given twice: name the VMs in one list (--vm %s,%s)\nTry '\''vmtrace-record --help'\'' for more information.\n' \
	"$a" "$b" >want.txt
unfold err.txt | cmp -s - want.txt || { diff want.txt err.txt >&2; fail "--vm twice: the lines"; }
[ ! -e bad.vmt ] || fail "--vm twice: a file was written"
# one VM by two names: the file would keep one, and a report asked for the other would fail
rec --vm "$a,$a_pid" -o bad.vmt
expect_rc 64 "--vm $a,$a_pid"
[ "$(unfold err.txt)" = "vmtrace-record: --vm: $a and $a_pid are the same VM (pid $a_pid)" ] ||
	{ cat err.txt >&2; fail "--vm $a,$a_pid: not the one line"; }
[ ! -e bad.vmt ] || fail "--vm $a,$a_pid: a file was written"

# busy vCPU threads without QEMU's names (never asleep in KVM_RUN): found by guest time,
# numbered by the kvm-vcpu ids in ascending order (0 and 2 here), recorded as C's
kill "$a_pid" "$b_pid"
c=vmc$$
start_vmm c.json -name "$c" --unnamed --busy --vcpus 2 --id-stride 2 --pin 1:1
rec --vm "$c" -o c.vmt
expect_rc 0 "--vm $c (busy, unnamed)"
unfold err.txt | grep -qF "VM $c: pid $vmm_pid (by cmdline), 2 vCPU thread(s) (by guest-time)" ||
	{ cat err.txt >&2; fail "--vm $c: not found by guest time"; }
run vmtrace-report --json c.vmt
python3 - out.txt c.json "$c" <<'EOF' || fail "--vm $c: the file's vCPU threads"
import json, sys
d, vmm, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
want = sorted((v["tid"], v["kvm_id"]) for v in vmm["vcpus"])
have = sorted((v["pid"], v["vcpu"]) for v in d["vcpus"] if v.get("vm") == name)
assert have == want, ("file", have, "fakevmm", want)
assert {v["pid"] for v in d["vcpus"]} <= {t for t, _ in want}, d["vcpus"]
EOF

# Two VMs of one name (the two QEMUs of a local live migration both run -name web), given
# by their pids: --metrics labels each one's samples vm="web (pid P)" with its VMM's pid in
# every family, and no sample line's name and labels come twice (node_exporter refuses such
# a file); as the report's, byte for byte unless records came late or were lost. C stops
# first: its busy vCPUs on CPU 1 would leave these two too little time.
kill "$vmm_pid" 2>/dev/null
w=vmw$$
start_vmm w1.json -name "$w" --busy --vcpus 1 --pin 1
w1_pid=$vmm_pid
start_vmm w2.json -name "$w" --busy --vcpus 1 --pin 1
w2_pid=$vmm_pid
rec --context none --vm "$w1_pid,$w2_pid" --metrics w.prom -o w.vmt
expect_rc 0 "--vm $w1_pid,$w2_pid (one name)"
cp err.txt w-rec.err
vmtrace-report --openmetrics=w-report.prom w.vmt || fail "--openmetrics=FILE w.vmt"
python3 - w.prom "$w" "$w1_pid" "$w2_pid" <<'EOF' || fail "--metrics, two VMs of one name"
import re, sys
f, name, p1, p2 = sys.argv[1:]
seen, vms = set(), {}
for line in open(f):
    if line.startswith("#"):
        continue
    key = line.rsplit(" ", 1)[0]
    assert key not in seen, ("twice", line)
    seen.add(key)
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', line.split("}")[0]))
    if "vm" in labels:
        vms.setdefault(labels["vm"], set()).add(line.split("{")[0])
want = {"%s (pid %s)" % (name, p1), "%s (pid %s)" % (name, p2)}
assert set(vms) == want, ("vm labels", sorted(vms), "want", sorted(want))
# each VM in the per-task and the per-reason families alike
assert all({"vmtrace_vcpu_exits_total", "vmtrace_exits_total"} <= v for v in vms.values()), vms
print("--metrics, two VMs named %s: %d samples, each label set once; vm %s"
      % (name, len(seen), sorted(vms)))
EOF
if ! grep -q -e "came too late" -e "lost" w-rec.err; then
	cmp w.prom w-report.prom ||
		{ diff w-report.prom w.prom | head >&2; fail "--metrics (one name) differs from the report's"; }
fi
kill "$w1_pid" "$w2_pid" 2>/dev/null

# A VM that exits while recorded is said once, by name and pid (its threads are gone: the
# filter names them, so a VM started again under that name would not be recorded); the
# recording goes on and is kept.
d=vmd$$
start_vmm d.json -name "$d" --busy --vcpus 1 --pin 1
d_pid=$vmm_pid
start_record -c 0 -e "$SYSCALL_EVENTS" --context none --vm "$d" -o d.vmt
kill "$d_pid"
wait "$d_pid" 2>/dev/null
for _ in $(seq 200); do
	unfold rec.err | grep -q "is gone" && break
	sleep 0.05
done
kill -INT "$rec_pid"
wait "$rec_pid" || { cat rec.err; fail "--vm with its VM gone: not exit 0"; }
gone="VM $d (pid $d_pid) is gone: none of its vCPU threads is left; the recording goes on"
gone="$gone without them, and a VM started again as $d is not recorded"
[ "$(unfold rec.err | grep -cF "$gone")" = 1 ] ||
	{ cat rec.err; fail "the VM's exit is not said once"; }
[ -s d.vmt ] || fail "the recording of a VM that exited was not kept"
finish
