#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every view of vmtrace-report tells the truth (issue 12's report points), each checked
# against an independent computation: Python recounts of vmtrace-convert's CSV rows, the
# JSON of another view, or figures written into a generated recording by hand.
. "$(dirname "$0")/lib.sh"
F="$DATA/formats/linux-6.18-x86_64"
cp "$DATA/sample-kvm.vmt" kvm.vmt
vmtrace-convert --csv -o kvm.csv kvm.vmt || fail "csv"

# 1. --threshold: the exits at least that long, with their latency (not their time), in
# the columns of the longest exits, and in JSON as over_threshold with a count.
run vmtrace-report --json --threshold 1ms kvm.vmt
expect_rc 0 "--json --threshold"
python3 - out.txt kvm.csv <<'PY' || fail "--threshold list differs from a recount of the CSV"
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if int(r["latency_ns"]) >= 1000000]
want = sorted((int(r["start_ns"]), int(r["latency_ns"]), r["reason"]) for r in rows)
got = sorted((t["time_ns"], t["latency_ns"], t["reason"].split("(")[0]) for t in d["over_threshold"])
assert got == want and d["over_threshold_count"] == len(want) == 10, (got, want)
PY
run vmtrace-report --threshold 1ms kvm.vmt
sed -n '/^Exits of at least/,/^$/p' out.txt >thr.txt
grep -q "^Exits of at least 1.000 ms: 10$" thr.txt || fail "threshold title"
grep -q "time (s) pcpu  vcpu      pid reason  *latency  fields" thr.txt || fail "threshold header"
# the threshold is included: at exactly the longest exit's latency, that exit is listed
vmtrace-report --json kvm.vmt >whole.json
max=$(json whole.json 'd["latency_ns"]["max"]')
run vmtrace-report --threshold "${max}ns" kvm.vmt
grep -q "^Exits of at least .*: 1$" out.txt || fail "--threshold at the longest exit's latency"

# each row's latency column is the exit's latency (the bug printed its time twice)
grep -q "0.001920464    1     0      118 npf(0x400)               2.765 ms  rip 0x1000" thr.txt ||
	fail "threshold row"

# --around in JSON: the events of the window, in time order, entries with their latency
run vmtrace-report --json --around 0.3917s,2ms kvm.vmt
python3 - out.txt kvm.csv <<'PY' || fail "--around in JSON"
import csv, json, sys
d = json.load(open(sys.argv[1]))
ev = d["around"]
lo, hi = 391700000 - 2000000, 391700000 + 2000000
assert ev and all(lo <= e["time_ns"] <= hi for e in ev)
assert [e["time_ns"] for e in ev] == sorted(e["time_ns"] for e in ev)
exits = sorted(int(r["start_ns"]) for r in csv.DictReader(open(sys.argv[2]))
               if lo <= int(r["start_ns"]) <= hi)
assert [e["time_ns"] for e in ev if e["kind"] == "exit"] == exits, "exits of the window"
assert any(e["kind"] == "entry" and e["latency_ns"] == 3647109 for e in ev)
PY
# a pair other than KVM's (system calls): its events are begins and ends, as the text's
# BEGIN and END and convert --events call them, and the same events as convert's rows
SYS="$DATA/sample-syscalls.vmt"
run vmtrace-report --json --around 0.01s,1ms "$SYS"
mv out.txt sys.json
vmtrace-convert --csv --events -o sys.csv "$SYS" || fail "--events of the syscall sample"
python3 - sys.json sys.csv <<'PY' || fail "--around in JSON, system calls"
import csv, json, sys
ev = [e for e in json.load(open(sys.argv[1]))["around"] if e["kind"] not in ("context", "lost")]
lo, hi = 10000000 - 1000000, 10000000 + 1000000
rows = [(int(r["time_ns"]), r["kind"]) for r in csv.DictReader(open(sys.argv[2]))
        if lo <= int(r["time_ns"]) <= hi]
assert {e["kind"] for e in ev} == {"begin", "end"}, {e["kind"] for e in ev}
assert sorted((e["time_ns"], e["kind"]) for e in ev) == sorted(rows), (len(ev), len(rows))
PY

# 3. -v and --around honour the filters; an entry goes with the exit it ends.
run vmtrace-report -v --reason npf kvm.vmt
exits=$(grep -c " EXIT " out.txt)
entries=$(grep -c " ENTRY " out.txt)
npf=$(python3 -c 'import csv,sys; print(sum(r["reason"] == "npf" for r in csv.DictReader(open(sys.argv[1]))))' kvm.csv)
[ "$exits" = "$npf" ] && [ "$entries" = "$npf" ] || fail "-v --reason npf: $exits exits, $entries entries, want $npf"
grep " EXIT " out.txt | grep -qv "reason npf" && fail "-v --reason npf shows another reason"
run vmtrace-report --around 1s,500ms --reason hlt kvm.vmt
grep " EXIT " out.txt | grep -v "reason hlt" | grep -q . && fail "--around ignores --reason"

# 4. An empty --around list says why: past the recording (its duration, the JSON's, in the
# report's four digits cut), or nothing then (the CSV has no event within 1 ns of there).
vmtrace-report --json kvm.vmt >whole.json || fail "--json"
run vmtrace-report --around 1000s kvm.vmt
expect_rc 0 "--around past the end"
lasted=$(python3 -c 'import json, sys; ns = json.load(open(sys.argv[1]))["duration_ns"]
print("%.3f s" % (ns // 10**6 / 1000) if ns >= 10**9 else "")' whole.json)
[ -n "$lasted" ] || fail "the sample lasted under a second?"
tail -1 out.txt | grep -qx "  none: the recording lasted $lasted" ||
	{ tail -3 out.txt; fail "--around past the end: not 'the recording lasted $lasted'"; }
vmtrace-convert --csv --events -o events.csv kvm.vmt || fail "csv --events"
at=$(python3 -c 'import csv, sys
t = sorted(int(r["time_ns"]) for r in csv.DictReader(open(sys.argv[1])))
gap = max(zip(t, t[1:]), key=lambda p: p[1] - p[0])
assert gap[1] - gap[0] > 4, gap
print("%dns" % ((gap[0] + gap[1]) // 2))' events.csv) || fail "no gap between events"
run vmtrace-report --around "$at,1ns" kvm.vmt
tail -1 out.txt | grep -qx "  none: no event was recorded then" ||
	{ tail -3 out.txt; fail "--around $at,1ns: no note that nothing was recorded then"; }
# events there, but none of the reason asked for (the sample has no nmi exits)
run vmtrace-report --around 1s,500ms --reason nmi kvm.vmt
tail -1 out.txt | grep -qx "  none: no event the filters select then" ||
	{ tail -3 out.txt; fail "--around with a filter: not 'no event the filters select'"; }

# 6. The time in guest of a vCPU task: the same from the .vmt and from the trace.bin of the
# same pages, and equal to 1 - out-of-guest / (last entry - first exit) from the CSV.
vmtrace-convert --legacy -o kvm.bin kvm.vmt || fail "--legacy"
vmtrace-report --json kvm.vmt >a.json
vmtrace-report --json --format-dir "$DATA/formats/linux-6.1-kvmhost" kvm.bin >b.json
python3 - a.json b.json kvm.csv <<'PY' || fail "in-guest share"
import csv, json, sys
a, b = (json.load(open(f))["vcpus"][0]["in_guest_percent"] for f in sys.argv[1:3])
rows = list(csv.DictReader(open(sys.argv[3])))
out = sum(int(r["latency_ns"]) for r in rows)
span = max(int(r["start_ns"]) + int(r["latency_ns"]) for r in rows) - min(int(r["start_ns"]) for r in rows)
want = 100 * (1 - out / span)
assert a == b and abs(a - want) < 1e-3, (a, b, want)
PY

# 7. Histogram columns in CPU order, whatever CPU had the first exit.
printf 'cpus 0-2\nexit 2 1000 12 0x78 2\nentry 2 2000 12 2\nexit 0 3000 10 0x78 0\nentry 0 3500 10 0\nexit 1 4000 11 0x78 1\nentry 1 4100 11 1\n' |
	"$HELPERS/mkvmt" "$F" order.vmt || fail mkvmt
run vmtrace-report --histogram --bucket 100ns order.vmt
grep -q "^# from  *CPU-000  *CPU-001  *CPU-002  *total" out.txt || fail "histogram header not in CPU order"
run vmtrace-report --json --histogram --bucket 100ns order.vmt
[ "$(json out.txt '[c["cpu"] for c in d["histogram"]["cpus"]]')" = "[0, 1, 2]" ] || fail "JSON histogram order"
[ "$(json out.txt '[c["counts"][5] for c in d["histogram"]["cpus"]]')" = "[1, 0, 0]" ] ||
	fail "histogram counts (500 ns on CPU 0)"

# 8. The window the line names is the window used, and the sum never reads above it.
printf 'exit 0 0 5 0x78 0\nentry 0 999999 5 0\n' | "$HELPERS/mkvmt" "$F" long.vmt || fail mkvmt
run vmtrace-report --legacy --window 5ms kvm.vmt
grep -q "^Maximum cumulative latency within 5ms = [0-9]*us$" out.txt || fail "--legacy --window 5ms"
[ "$(sed -n 's/.*within 5ms = \([0-9]*\)us/\1/p' out.txt)" -le 5000 ] || fail "above the window"
run vmtrace-report --window 999999ns long.vmt
grep -q "within 999999 ns = 999.9 us" out.txt || fail "999999 ns window shown rounded up"
run vmtrace-report --json --pair raw_syscalls:sys_enter,raw_syscalls:sys_exit "$DATA/tracedat/tsc2nsec.dat"
[ "$(json out.txt 'd["window_ns"] == 1000000 and d["max_window_sum_ns"] <= 1000000')" = True ] ||
	fail "tsc2nsec: the default window is not 1 ms"

# 15. 120 columns by default, the report and -v alike; --wide shows the rest.
for f in kvm.vmt "$DATA/sample-syscalls.vmt"; do
	vmtrace-report "$f" >wide.txt
	awk 'length($0) > 120 { print; n++ } END { exit n > 0 }' wide.txt || fail "$f: lines over 120"
done
vmtrace-report -v kvm.vmt | awk 'length($0) > 120 { n++ } END { exit n > 0 }' || fail "-v over 120"
vmtrace-report --wide kvm.vmt >wide.txt
grep -q "stddev  *p50  *p90  *p99  *p99.9  *p99.99" wide.txt || fail "--wide columns"
grep -q "rip 0x1006 info1 0x0 info2 0x0 intr_info 0x0 error_code 0x0" wide.txt || fail "--wide fields"

# 16. One unit per table, named in its title; JSON integers above 2^53 as strings.
vmtrace-report kvm.vmt >t.txt
grep -q "latencies in us, totals in ms:" t.txt || fail "table units"
python3 - t.txt kvm.csv <<'PY' || fail "table figures differ from the CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[2])))
lines = open(sys.argv[1]).read().splitlines()
i = next(k for k, l in enumerate(lines) if l.startswith("Exit reasons"))
def cut_of(shown, true):
    # four significant digits, cut: never above, less than one unit of the last digit below
    v = float(shown)
    return v <= true < v + 10 ** (len(str(int(v))) - 4 if v >= 1 else -3) + 1e-9
for l in lines[i + 2:i + 7]:
    f = l.split()
    name = f[0].split("(")[0]
    lat = [int(r["latency_ns"]) for r in rows if r["reason"] == name]
    assert int(f[1]) == len(lat), l
    assert cut_of(f[3], sum(lat) / 1e6), l       # total in ms
    assert cut_of(f[5], min(lat) / 1e3), l       # min in us
    assert cut_of(f[10], max(lat) / 1e3), l      # max in us
PY
printf 'exit 0 9007199254740993 5 0x78 0\nentry 0 9007199254741993 5 0\n' | "$HELPERS/mkvmt" "$F" big.vmt || fail mkvmt
run vmtrace-report --json big.vmt
python3 - out.txt <<'PY' || fail "integers above 2^53"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["top"][0]["ts"] == "9007199254740993", d["top"][0]["ts"]
assert d["top"][0]["latency_ns"] == 1000
PY

# 17. Other event pairs in neutral words: no VM, no guest RIP, no claim of a table.
run vmtrace-report "$DATA/sample-syscalls.vmt"
kvm_words='VM events\|VM Exit\|guest\|built-in table\|exit-entry\|exits\|vcpu'
grep -qi "$kvm_words" out.txt && { grep -i "$kvm_words" out.txt; fail "KVM words for syscalls"; }
grep -q "^Begin-end pairs = 100046$" out.txt || fail "neutral pair count"

# 13. Options a mode would ignore are refused.
for args in "--legacy --histogram" "--legacy --top 5" "--legacy --threshold 1ms" \
	    "--json --wide" "--json --hist-format cyclictest" "-v --around 1s" "--why"; do
	# shellcheck disable=SC2086
	run vmtrace-report $args kvm.vmt
	[ "$rc" = 64 ] || fail "vmtrace-report $args: exit $rc, want 64"
done
run vmtrace-report --legacy --window 5ms kvm.vmt
expect_rc 0 "--legacy --window is honoured"
# Guest availability with exits left out counts the selected ones only, and says so.
W="$DATA/why/sample/kvm.vmt"
vmtrace-report "$W" >all.txt || fail "the why sample"
vmtrace-report --reason hlt "$W" >hlt.txt || fail "the why sample, --reason hlt"
grep -q '^Guest availability: .* (first exit to last entry)$' all.txt || fail "availability label"
grep -q '^Guest availability (selected exits only): ' hlt.txt || fail "filtered availability label"
a=$(sed -n 's/^Guest availability: \([0-9.]*\) %.*/\1/p' all.txt)
h=$(sed -n 's/^Guest availability (selected exits only): \([0-9.]*\) %.*/\1/p' hlt.txt)
awk -v a="$a" -v h="$h" 'BEGIN { exit !(h > a) }' || fail "fewer exits but less availability: $a / $h"
exit 0
