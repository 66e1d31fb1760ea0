#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The bundled real recordings: golden text and JSON, the legacy four lines, the -f spelling.
. "$(dirname "$0")/lib.sh"

# The real KVM recording (tests/kvmhost/run.sh): the README's main job, with its histogram.
cp "$DATA/sample-kvm.vmt" .
run vmtrace-report --histogram sample-kvm.vmt
expect_rc 0 "report on the KVM sample"
diff -u "$DATA/sample-kvm.report.txt" out.txt || fail "KVM sample: text report differs from golden"
run vmtrace-report --json sample-kvm.vmt
diff -u "$DATA/sample-kvm.report.json" out.txt || fail "KVM sample: JSON differs from golden"
[ "$(json out.txt '[r["name"] for r in d["reasons"]][:4] == ["cpuid", "io", "npf", "hlt"] and d["lost_events"] == 0')" = True ] ||
	fail "KVM sample: reasons"

cp "$DATA/sample-syscalls.vmt" .
run vmtrace-report sample-syscalls.vmt
expect_rc 0 "report on the sample"
diff -u "$DATA/sample-syscalls.report.txt" out.txt || fail "text report differs from golden"
[ ! -s err.txt ] || { cat err.txt; fail "warnings on a clean sample"; }

run vmtrace-report --json sample-syscalls.vmt
expect_rc 0 "json report"
diff -u "$DATA/sample-syscalls.report.json" out.txt || fail "JSON report differs from golden"
python3 -m json.tool out.txt >/dev/null || fail "JSON does not parse"
mv out.txt r.json
for k in events pairs lost_events orphans cpus latency_ns window_ns max_window_sum_ns; do
	[ "$(json r.json "'$k' in d")" = True ] || fail "JSON lacks $k"
done
[ "$(json r.json 'd["lost_events"]')" = 0 ] || fail "the sample has no lost events"
# each task's time in the guest, recounted from its rows: out of its first exit to last
# entry, cut (never rounded) to four decimals as the text cuts it to three
vmtrace-convert --csv sample-syscalls.vmt >rows.csv || fail "csv"
python3 - r.json rows.csv <<'PY' || fail "in_guest_percent differs from a recount"
import csv, json, sys
rows = {}
for r in csv.DictReader(open(sys.argv[2])):
    s, l = int(r["start_ts_ns"]), int(r["latency_ns"])
    lo, hi, tot = rows.get(int(r["task"]), (s, s + l, 0))
    rows[int(r["task"])] = (min(lo, s), max(hi, s + l), tot + l)
for v in json.load(open(sys.argv[1]))["vcpus"]:
    lo, hi, tot = rows[v["pid"]]
    cut = (hi - lo - tot) * 10**6 // (hi - lo)
    want = float("%d.%04d" % divmod(cut, 10**4))
    assert v["in_guest_percent"] == want, (v["pid"], v["in_guest_percent"], want)
print(len(rows), "tasks' in_guest_percent recounted")
PY
[ "$(json r.json 'd["pairs"] >= 100000')" = True ] || fail "sample pairs"
# the loop's own task made its 100000 calls: at least that many pairs
[ "$(json r.json 'd["vcpus"][0]["pairs"] >= 100000')" = True ] || fail "loop task pairs"
[ "$(json r.json 'd["max_window_sum_ns"] <= d["window_ns"]')" = True ] || fail "window bound"

# The original tool's command line and its four lines, figures in whole microseconds.
run vmtrace-report -f sample-syscalls.vmt --legacy
expect_rc 0 "legacy report"
[ "$(wc -l <out.txt)" = 4 ] || fail "--legacy prints four lines"
avg_us=$(json r.json 'd["latency_ns"]["avg"] // 1000')
max_us=$(json r.json 'd["latency_ns"]["max"] // 1000')
events=$(json r.json 'd["events"]')
grep -qx "Number of VM events = $events" out.txt || fail "legacy events"
grep -qx "Average VM Exit-Entry latency = ${avg_us}us" out.txt || fail "legacy average"
grep -qx "Maximum VM Exit-Entry latency = ${max_us}us" out.txt || fail "legacy maximum"
grep -q "^Maximum cumulative latency within 1ms = [0-9]*us$" out.txt || fail "legacy window"

# A wider window never gives a smaller maximum.
run vmtrace-report --json --window 10ms sample-syscalls.vmt
mv out.txt w10.json
[ "$(json w10.json 'd["window_ns"]')" = 10000000 ] || fail "--window 10ms"
[ "$(python3 -c "import json; a=json.load(open('r.json')); b=json.load(open('w10.json')); print(b['max_window_sum_ns'] >= a['max_window_sum_ns'])")" = True ] ||
	fail "a wider window gave a smaller maximum"
exit 0
