#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording with the VM map of vmtrace-record --vm (two VMs, each with a vCPU 0 and a
# vCPU 1, and a task of neither; tests/helpers/twovms.py, whose own count is the answer):
# vmtrace-report --openmetrics gives the per-vCPU samples a vm label, parsed here by
# python3-prometheus-client's OpenMetrics parser. Per VM, the sums of the exits and of the
# out-of-guest seconds equal twovms.py's count of what it wrote, a recount of
# vmtrace-convert --csv's rows by their vm column, and the JSON's vcpus by their vm; the
# per-reason samples are per VM and reason too, their exits, counts and sums a recount of
# the CSV's rows by vm and reason (not two VMs summed, nor one series twice);
# vm="web1",vcpu="0" and vm="db",vcpu="0" need no pid; filtered with --vm db, every sample
# has vm="db". openmetrics_check.py checks every
# sample against the JSON and the CSV; promtool (when installed) lints the textfile form,
# which Prometheus refuses with a label twice. The JSON's top and over_threshold exits name
# the VM of their task as the map does, null for the task of neither.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import prometheus_client.openmetrics.parser' 2>/dev/null ||
	skip "python3-prometheus-client is not installed (scripts/setup-debian12.sh --tests)"

$PY "$top_srcdir/tests/helpers/twovms.py" vms.txt truth.json || fail "twovms.py"
# an exit of each VM still open at the stop (db's io, web1's hlt): no pairs, so twovms.py's
# counts still hold; vmtrace_open_exit_seconds has them per VM (openmetrics_check.py)
printf 'exit 1 69800000 2000 0x7b 0\nexit 0 69810000 1001 0x78 1\n' >>vms.txt
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" vms.vmt <vms.txt || fail "mkvmt"

# check FILTER...: the metrics of vms.vmt (with the report's filter options) against the
# JSON, the CSV and twovms.py's count
check() {
	run vmtrace-report --openmetrics "$@" vms.vmt
	expect_rc 0 "--openmetrics $*"
	[ ! -s err.txt ] || { cat err.txt >&2; fail "--openmetrics $*: messages on stderr"; }
	mv out.txt om.txt
	vmtrace-report --json "$@" vms.vmt >r.json || fail "--json $*"
	vmtrace-convert --csv "$@" vms.vmt >pairs.csv || fail "--csv $*"
	$PY "$top_srcdir/tests/helpers/openmetrics_check.py" om.txt r.json pairs.csv mkvmt ||
		fail "--openmetrics $*: the metrics differ from the JSON (above)"
	$PY - om.txt r.json pairs.csv truth.json "$@" <<'PY' || fail "--openmetrics $*: per VM"
import csv, json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
om, rep, rows, truth = sys.argv[1:5]
only = sys.argv[6] if sys.argv[5:6] == ["--vm"] else None
fams = {f.name: f for f in text_string_to_metric_families(open(om).read())}
rep = json.load(open(rep))
truth = json.load(open(truth))
want = {vm: v for vm, v in truth["per_vm"].items() if only is None or vm == only}

def per_vm(fam, scale):
    sums = {}
    for s in fams[fam].samples:
        assert "vm" in s.labels, s             # every sample of the family, "" or a name
        sums[s.labels["vm"]] = sums.get(s.labels["vm"], 0) + round(s.value * scale)
    return sums
exits = per_vm("vmtrace_vcpu_exits", 1)
oog = per_vm("vmtrace_out_of_guest_seconds", 1e9)
assert set(per_vm("vmtrace_worst_window_seconds", 1e9)) == set(want), "worst window's vms"
got = {vm: {"count": exits[vm], "total_ns": oog[vm]} for vm in exits}
assert got == want, ("metrics", got, "twovms.py", want)
# the same recounted from the CSV's rows and from the JSON's vcpus
csvsum = {}
for r in csv.DictReader(open(rows)):
    v = csvsum.setdefault(r["vm"], {"count": 0, "total_ns": 0})
    v["count"] += 1
    v["total_ns"] += int(r["latency_ns"])
assert csvsum == want, ("CSV", csvsum, "twovms.py", want)
jsum = {}
for t in rep["vcpus"]:
    v = jsum.setdefault(t["vm"] or "", {"count": 0, "total_ns": 0})
    v["count"] += t["pairs"]
    v["total_ns"] += t["total_ns"]
assert jsum == want, ("JSON", jsum, "twovms.py", want)
# one series per VM and vCPU, named without pids
labels = sorted((s.labels["vm"], s.labels["vcpu"]) for s in fams["vmtrace_vcpu_exits"].samples)
expect = sorted(x for x in [("web1", "0"), ("web1", "1"), ("db", "0"), ("db", "1"), ("", "0")]
                if only is None or x[0] == only)
assert labels == expect, labels
# per VM and reason: exits, the histogram's count and sum a series each, recounted from the
# CSV's rows by their vm and reason columns (both VMs and the task of neither, vm "")
def per_vm_reason(name):
    got = {}
    for s in fams[name[0]].samples:
        if s.name == name[0] + name[1]:
            key = (s.labels["vm"], s.labels["reason"])
            assert key not in got, ("twice", s)
            got[key] = round(s.value * name[2])
    return got
count, total = {}, {}
for r in csv.DictReader(open(rows)):
    key = (only if only is not None else r["vm"], r["reason"])
    count[key] = count.get(key, 0) + 1
    total[key] = total.get(key, 0) + int(r["latency_ns"])
assert len({vm for vm, _ in count}) == (1 if only else 3) and len(count) == (4 if only else 12), count
for fam, want_vr in ((("vmtrace_exits", "_total", 1), count),
                     (("vmtrace_exit_latency_seconds", "_count", 1), count),
                     (("vmtrace_exit_latency_seconds", "_sum", 1e9), total)):
    got = per_vm_reason(fam)
    assert got == want_vr, (fam, "metrics", got, "CSV", want_vr)
# the per-task and per-reason families name VMs; filtered to one VM, every sample does (its
# lost, orphans and window series are that VM's, not the host's)
for f in fams.values():
    for s in f.samples:
        if only is not None:
            assert s.labels.get("vm") == only, s
        else:
            assert ("vm" in s.labels) == (f.name not in ("vmtrace_window_seconds",
                   "vmtrace_lost_events", "vmtrace_lost_uncounted", "vmtrace_orphans",
                   "vmtrace_open_exits")), s
print("per VM (%s): exits and out-of-guest time equal twovms.py, the CSV and the JSON; "
      "%d series per VM and reason equal the CSV"
      % (", ".join("%s %d" % (vm or '""', v["count"]) for vm, v in sorted(want.items())),
         len(count)))
PY
}
check
check --vm db

# Two VMs of one name (the two QEMUs of a local live migration both run -name web): each
# VM's samples are labelled vm="web (pid 900)" / vm="web (pid 901)" in every family, never
# the same label set twice (openmetrics_check.py reads every sample line for that); per
# label the exits and out-of-guest time equal twovms.py's count, per label and reason a
# recount of the CSV's rows by the map twovms.py wrote, and the vCPU labels need no pid.
$PY "$top_srcdir/tests/helpers/twovms.py" --one-name web.txt webtruth.json || fail "twovms.py"
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" web.vmt <web.txt || fail "mkvmt, one name"
run vmtrace-report --openmetrics web.vmt
expect_rc 0 "--openmetrics, two VMs of one name"
mv out.txt web.om
vmtrace-report --json web.vmt >web.json || fail "--json, two VMs of one name"
vmtrace-convert --csv web.vmt >web.csv || fail "--csv, two VMs of one name"
$PY "$top_srcdir/tests/helpers/openmetrics_check.py" web.om web.json web.csv mkvmt webtruth.json ||
	fail "--openmetrics, two VMs of one name: the metrics differ from the JSON (above)"
$PY - web.om web.csv webtruth.json <<'PY' || fail "--openmetrics, two VMs of one name: per VM"
import csv, json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
truth = json.load(open(sys.argv[3]))
label_of = {int(k): v for k, v in truth["label_of"].items()}
def sums(fam, suffix, scale, key):
    got = {}
    for s in fams[fam].samples:
        if s.name == fam + suffix:
            k = key(s.labels)
            got[k] = got.get(k, 0) + round(s.value * scale)
    return got
vm = lambda l: l["vm"]
got = {k: {"count": v, "total_ns": sums("vmtrace_out_of_guest_seconds", "_total", 1e9, vm)[k]}
       for k, v in sums("vmtrace_vcpu_exits", "_total", 1, vm).items()}
assert got == truth["per_vm"], ("metrics", got, "twovms.py", truth["per_vm"])
count, total = {}, {}
for r in csv.DictReader(open(sys.argv[2])):
    k = (label_of[int(r["task"])], r["reason"])
    count[k] = count.get(k, 0) + 1
    total[k] = total.get(k, 0) + int(r["latency_ns"])
assert len(count) == 12, count
vr = lambda l: (l["vm"], l["reason"])
assert sums("vmtrace_exits", "_total", 1, vr) == count, sums("vmtrace_exits", "_total", 1, vr)
assert sums("vmtrace_exit_latency_seconds", "_count", 1, vr) == count
assert sums("vmtrace_exit_latency_seconds", "_sum", 1e9, vr) == total
tasks = sorted((s.labels["vm"], s.labels["vcpu"]) for s in fams["vmtrace_vcpu_exits"].samples)
assert tasks == sorted([("web (pid 900)", "0"), ("web (pid 900)", "1"), ("web (pid 901)", "0"),
                        ("web (pid 901)", "1"), ("", "0")]), tasks
print("two VMs named web: %d series per VM and reason, per VM %s" % (len(count), got))
PY
# and the textfile form, which node_exporter refuses with a label set twice
run vmtrace-report --openmetrics=web.prom web.vmt
expect_rc 0 "--openmetrics=FILE, two VMs of one name"
$PY - web.prom <<'PY' || fail "--openmetrics=FILE, two VMs of one name: a label set twice"
import sys
lines = [l.rsplit(" ", 1)[0] for l in open(sys.argv[1]) if not l.startswith("#")]
assert len(lines) == len(set(lines)) and any('vm="web (pid 901)"' in l for l in lines), lines[:4]
PY

# Prometheus's text (the textfile form): promtool's linter, an outside parser
run vmtrace-report --openmetrics=vms.prom vms.vmt
expect_rc 0 "--openmetrics=FILE"
grep -q '^vmtrace_vcpu_exits_total{host="mkvmt",vm="db",vcpu="0"} ' vms.prom ||
	fail "--openmetrics=FILE: no vm label"
if command -v promtool >/dev/null; then
	promtool check metrics <vms.prom >lint.txt 2>&1 ||
		{ cat lint.txt >&2; fail "promtool check metrics"; }
else
	skip_part "promtool (Debian package prometheus)"
fi

# The JSON's exits name their task's VM: top and over_threshold
run vmtrace-report --json --top 40 --threshold 2ms vms.vmt
expect_rc 0 "--json --top --threshold"
$PY - out.txt truth.json <<'PY' || fail "--json: the exits' vm is not the map's"
import json, sys
d = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
vm_of = {int(k): v for k, v in truth["vm_of"].items()}
for key in ("top", "over_threshold"):
    seen = set()
    for e in d[key]:
        assert "vm" in e and e["vm"] == vm_of[e["pid"]], (key, e["pid"], e.get("vm"))
        seen.add(e["vm"])
    # the long exits are spread over every task: both VMs and the task of neither
    assert seen == {"web1", "db", None}, (key, seen)
assert d["over_threshold_count"] == len(d["over_threshold"]) > 0
assert all(e["latency_ns"] >= truth["long_ns"] for e in d["over_threshold"])
print("top %d, over_threshold %d: vm as the map says" % (len(d["top"]), len(d["over_threshold"])))
PY
# and --around's exits and entries, as vmt_report_json_exit's
run vmtrace-report --json --around 0.05s,50ms vms.vmt
expect_rc 0 "--json --around"
$PY - out.txt truth.json <<'PY' || fail "--json --around: the events' vm is not the map's"
import json, sys
d = json.load(open(sys.argv[1]))
vm_of = {int(k): v for k, v in json.load(open(sys.argv[2]))["vm_of"].items()}
ev = [e for e in d["around"] if e["kind"] in ("exit", "entry")]
assert all(e["vm"] == vm_of[e["pid"]] for e in ev), [e for e in ev if e["vm"] != vm_of[e["pid"]]][:3]
assert {e["vm"] for e in ev} == {"web1", "db", None}, {e["vm"] for e in ev}
print("around: %d events, vm as the map says" % len(ev))
PY
# In time slices (summaries merged: common/summarymerge.c) the series per VM and reason are
# one pass's, byte for byte, and a recount of the CSV: a generated recording with the map of
# two VMs (tasks 1000 and 1001 web1's, 1002 db's, 1003 neither's) in many small chunks.
"$HELPERS/mkvmt" --meta vm.count=2 --meta vm.0.name=web1 --meta vm.0.pid=900 \
	--meta vm.0.vcpus=1000:0,1001:1 --meta vm.1.name=db --meta vm.1.pid=901 \
	--meta vm.1.vcpus=1002:0 --chunk-pages 4 --random 100000 4 \
	"$DATA/formats/linux-6.18-x86_64" rvm.vmt >/dev/null || fail "mkvmt --random with a map"
VMTRACE_TEST_SLICES=6 vmtrace-report --jobs 3 --openmetrics rvm.vmt >sliced.om 2>sliced.err ||
	fail "--openmetrics in slices"
grep -qx "vmtrace-report: 6 time slices" sliced.err || fail "not in slices: $(cat sliced.err)"
VMTRACE_TEST_SLICES=0 vmtrace-report --jobs 1 --openmetrics rvm.vmt >one.om 2>one.err ||
	fail "--openmetrics in one pass"
grep -qx "vmtrace-report: 0 time slices" one.err || fail "not one pass: $(cat one.err)"
cmp -s sliced.om one.om || fail "--openmetrics: the slices' metrics differ from one pass's"
grep -q '^vmtrace_exits_total{host="mkvmt",vm="db",reason="[a-z]*"} [1-9]' one.om ||
	fail "--openmetrics: no exits of db per reason"
vmtrace-report --json rvm.vmt >rvm.json || fail "--json rvm.vmt"
vmtrace-convert --csv rvm.vmt >rvm.csv || fail "--csv rvm.vmt"
$PY "$top_srcdir/tests/helpers/openmetrics_check.py" sliced.om rvm.json rvm.csv mkvmt ||
	fail "--openmetrics in slices: the metrics differ from the JSON or the CSV (above)"

# A VM name that is not UTF-8 (a stray byte, a character cut short): the exposition stays
# UTF-8, each such byte a U+FFFD, as Python's own decoding with "replace" gives it
$PY - vms.txt bad.txt <<'PY' || fail "writing a name that is not UTF-8"
import sys
s = open(sys.argv[1], "rb").read().replace(b"meta vm.0.name web1", b"meta vm.0.name \xffweb\xc3-1")
open(sys.argv[2], "wb").write(s)
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" bad.vmt <bad.txt || fail "mkvmt, bad name"
vmtrace-report --openmetrics bad.vmt >bad.om || fail "--openmetrics, a name not UTF-8"
$PY - bad.om <<'PY' || fail "--openmetrics: a name not UTF-8 breaks the exposition"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open(sys.argv[1], "rb").read().decode("utf-8")     # strict: any bad byte raises
want = b"\xffweb\xc3-1".decode("utf-8", "replace")
vms = {s.labels.get("vm") for f in text_string_to_metric_families(text) for s in f.samples}
assert want in vms and "db" in vms, vms
PY
finish
