#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording with the VM map of vmtrace-record --vm whose events carry no vCPU id (a
# system-call pair, as recorded on hosts where kvm's events do not fire): every per-exit
# view gives a mapped thread its vCPU index from the map, as the JSON's vcpus do, and none
# to the task of neither VM. Checked against tests/helpers/twovms.py's own map, for the CSV,
# JSON lines, the Perfetto timeline and the report's JSON; the time series' rows (report
# --interval --json, convert --series CSV and JSON lines) carry the map's VM name and index
# too, and their exits add up to the script's count per VM. --vcpu selects by that index
# (alone, and with --vm), in the report and in convert, as a recount of the CSV rows' vm and
# vcpu columns says; an index the map lacks is refused, one line and 64.
. "$(dirname "$0")/lib.sh"

python3 "$top_srcdir/tests/helpers/twovms.py" vms.txt truth.json || fail "twovms.py"
# the same exits as system calls: no vcpu field in sys_enter or sys_exit
{ echo "events raw_syscalls:sys_enter raw_syscalls:sys_exit"
  sed -e 's/^\(exit [0-9]* [0-9]* [0-9]*\) 0x[0-9a-f]* [0-9]*$/\1 0/' \
      -e 's/^\(entry [0-9]* [0-9]* [0-9]*\) [0-9]*$/\1/' vms.txt; } >sys.txt
grep -q '^exit [0-9]* [0-9]* [0-9]* 0$' sys.txt || fail "the script's exits were not rewritten"
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" sys.vmt <sys.txt || fail "mkvmt"

vmtrace-convert --csv sys.vmt >rows.csv || fail "--csv"
vmtrace-convert --csv --events sys.vmt >events.csv || fail "--csv --events"
vmtrace-convert --jsonl sys.vmt >rows.jsonl || fail "--jsonl"
vmtrace-convert --perfetto sys.vmt >trace.json || fail "--perfetto"
vmtrace-report --json sys.vmt >r.json || fail "--json"
vmtrace-report --json --interval 10ms sys.vmt >rs.json || fail "--interval --json"
vmtrace-convert --csv --series=10ms sys.vmt >series.csv || fail "--series --csv"
vmtrace-convert --jsonl --series=10ms sys.vmt >series.jsonl || fail "--series --jsonl"
python3 - rows.csv events.csv rows.jsonl trace.json r.json vms.txt <<'PY' || fail "vcpu not the map's"
import csv, json, re, sys
rows, events, jsonl, trace, rep, script = sys.argv[1:7]
vcpu_of = {}                      # the map as twovms.py wrote it: tid -> vCPU index
for line in open(script):
    m = re.match(r"meta vm\.\d+\.vcpus (.*)", line)
    if m:
        for t in m.group(1).split(","):
            tid, idx = t.split(":")
            vcpu_of[int(tid)] = int(idx)
assert len(vcpu_of) == 4, vcpu_of
def want(task):
    return vcpu_of.get(int(task))
n = 0
for path in (rows, events):
    for r in csv.DictReader(open(path, newline="")):
        got = int(r["vcpu"]) if r["vcpu"] != "" else None
        assert got == want(r["task"]), (path, r)
        n += 1
for line in open(jsonl):
    r = json.loads(line)
    assert r["vcpu"] == want(r["task"]), r
    n += 1
for e in json.load(open(trace))["traceEvents"]:
    if e.get("cat") == "exit":
        assert e["args"].get("vcpu") == want(e["tid"]), e
        n += 1
for t in json.load(open(rep))["vcpus"]:
    assert t["vcpu"] == want(t["pid"]), t
print("vcpu of", n, "rows and slices: the map's index, none for the task of neither VM")
PY
python3 - rs.json series.csv series.jsonl truth.json vms.txt <<'PY' || fail "series rows without the map's VM"
import csv, json, re, sys
rep, scsv, sjsonl, truth, script = sys.argv[1:6]
truth = json.load(open(truth))
vcpu_of = {}
for line in open(script):
    m = re.match(r"meta vm\.\d+\.vcpus (.*)", line)
    if m:
        for t in m.group(1).split(","):
            tid, idx = t.split(":")
            vcpu_of[int(tid)] = int(idx)
views = {"report --json": json.load(open(rep))["series"],
         "--series --jsonl": [json.loads(l) for l in open(sjsonl)],
         "--series --csv": [dict(r, vcpu=int(r["vcpu"]) if r["vcpu"] != "" else None,
                                 vm=r["vm"] or None, pid=int(r["pid"]), exits=int(r["exits"]))
                            for r in csv.DictReader(open(scsv, newline=""))]}
for name, rows in views.items():
    assert rows, name
    per_vm = {}
    for r in rows:
        assert "vm" in r, (name, r)
        assert r["vm"] == truth["vm_of"][str(r["pid"])], (name, r)
        assert r["vcpu"] == vcpu_of.get(r["pid"]), (name, r)
        per_vm[r["vm"] or ""] = per_vm.get(r["vm"] or "", 0) + r["exits"]
    want = {k: v["count"] for k, v in truth["per_vm"].items()}
    assert per_vm == want, (name, per_vm, want)
    print(name, ": exits per VM", per_vm)
PY

# --vcpu by the map's index: the rows of that index (of --vm's VM) in the CSV of every row
vcpu_sel() {
	vmtrace-report --json "$@" sys.vmt >sel.json || fail "report --json $*"
	vmtrace-convert --csv "$@" sys.vmt >sel.csv || fail "convert --csv $*"
	vmtrace-convert --csv --events "$@" sys.vmt >sel-events.csv || fail "convert --events $*"
	python3 - rows.csv events.csv sel.json sel.csv sel-events.csv "$@" <<'PY' ||
import csv, json, sys
rows, events, rep, got, got_ev = sys.argv[1:6]
opts = dict(zip(sys.argv[6::2], sys.argv[7::2]))
vcpus = set()
for v in opts["--vcpu"].split(","):
    a, _, b = v.partition("-")
    vcpus |= set(range(int(a), int(b or a) + 1))
def keep(r):
    return (r["vcpu"] != "" and int(r["vcpu"]) in vcpus and
            r["vm"] == opts.get("--vm", r["vm"]))
want = [r for r in csv.DictReader(open(rows, newline="")) if keep(r)]
assert want and list(csv.DictReader(open(got, newline=""))) == want, opts
want_ev = [r for r in csv.DictReader(open(events, newline="")) if keep(r)]
assert want_ev and list(csv.DictReader(open(got_ev, newline=""))) == want_ev, opts
d = json.load(open(rep))
lat = [int(r["latency_ns"]) for r in want]
assert (d["pairs"] - d["filtered_out"], d["total_ns"]) == (len(lat), sum(lat)), (opts, d["total_ns"])
assert sorted(t["pid"] for t in d["vcpus"]) == sorted({int(r["task"]) for r in want}), opts
print(opts, len(want), "exits,", sum(lat), "ns")
PY
		fail "$*: not the rows of that vCPU index"
}
vcpu_sel --vcpu 1
vcpu_sel --vcpu 0 --vm db
vcpu_sel --vcpu 0-1 --vm web1
for p in vmtrace-report vmtrace-convert; do
	out=
	[ $p = vmtrace-convert ] && out=--csv
	# shellcheck disable=SC2086 # convert's output option
	run $p $out --vcpu 2,5 sys.vmt
	expect_rc 64 "$p --vcpu 2,5"
	[ ! -s out.txt ] || fail "$p --vcpu 2,5: wrote output"
	[ "$(cat err.txt)" = "$p: sys.vmt: --vcpu 2,5: no vCPU of that index in the recording's VM map (its vCPUs: 0-1)" ] ||
		fail "$p --vcpu 2,5: $(cat err.txt)"
done
# a vCPU thread of the map that made no exit: said so when nothing is selected
sed 's/^\(meta vm\.0\.vcpus .*\)$/\1,1002:2/' sys.txt >idle.txt
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" idle.vmt <idle.txt || fail "mkvmt idle"
run vmtrace-convert --csv --vcpu 2 idle.vmt
grep -q "^vmtrace-convert: idle.vmt: nothing selected: no begin of the threads of vCPU 2 in the VM map;" err.txt ||
	fail "--vcpu 2 of an idle thread: $(cat err.txt)"
# a VM of the map whose one vCPU thread made no exit: --vm says so, not that the filters
# matched nothing, in the pair's words (a halted or poll-mode vCPU looks the same)
for f in vms sys; do
	sed 's/^meta vm.count 2$/meta vm.count 3\nmeta vm.2.name idle\nmeta vm.2.pid 902\nmeta vm.2.vcpus 4000:0/' \
		$f.txt >idle3.txt
	grep -q "^meta vm.2.vcpus 4000:0$" idle3.txt || fail "$f: the third VM not added"
	"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" idle3.vmt <idle3.txt || fail "mkvmt idle3"
	[ $f = vms ] && words="no exit of the VM's 1 vCPU thread while recorded: in the guest, or in one exit, the whole time" ||
		words="no begin of the VM's 1 vCPU thread while recorded: between pairs, or in one, the whole time"
	for p in vmtrace-report vmtrace-convert; do
		[ $p = vmtrace-report ] && run $p --vm idle idle3.vmt || run $p --csv --vm idle idle3.vmt
		unfold err.txt | grep -qF "$p: idle3.vmt: nothing selected: $words (or on CPUs not traced)" ||
			fail "$p --vm idle ($f): $(cat err.txt)"
	done
done
exit 0
