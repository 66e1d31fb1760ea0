#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The full analysis on a generated recording with answers computed by hand: exact
# percentiles, reasons named from the recording's own kvm_exit format (SVM), per-pCPU and
# per-vCPU tables, top exits, the threshold list, events around a time, the verbose dump,
# histograms (text and cyclictest), and every filter alone and combined.
. "$(dirname "$0")/lib.sh"

# Ten exits of 100..1000 ns: seven cpuid (0x72) on CPU 0 / vCPU 0 (pid 7), three io (0x7b)
# on CPU 1 / vCPU 1 (pid 8); exit k starts at k ms (k = 1..10), that is k - 1 ms after the
# recording's start (its first page); plus one exit of a reason no table knows.
{
	k=1
	while [ $k -le 10 ]; do
		lat=$((k * 100)) ts=$((k * 1000000))
		if [ $k -le 7 ]; then
			echo "exit 0 $ts 7 0x72 0"; echo "entry 0 $((ts + lat)) 7 0"
		else
			echo "exit 1 $ts 8 0x7b 1"; echo "entry 1 $((ts + lat)) 8 1"
		fi
		k=$((k + 1))
	done
	echo "exit 1 20000000 8 0x9999 1"
	echo "entry 1 20000050 8 1"
} >script.txt
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" a.vmt <script.txt || fail mkvmt

j() {	# j EXPR [report options]: EXPR must be True on the JSON report
	expr=$1
	shift
	vmtrace-report --json "$@" a.vmt >j.json || fail "report $*"
	[ "$(json j.json "$expr")" = True ] || { python3 -m json.tool j.json | head -80; fail "$* : $expr"; }
}

j 'd["pairs"] == 11 and d["percentiles_ns"]["p50"] == 500 and d["percentiles_ns"]["p90"] == 900'
j 'd["percentiles_ns"]["p99"] == 1000 and d["percentiles_ns"]["p99.99"] == 1000'
j '[(x["name"], x["code"], x["count"], x["total_ns"]) for x in d["reasons"]] == [("cpuid", 0x72, 7, 2800), ("io", 0x7b, 3, 2700), (None, 0x9999, 1, 50)]'
j 'd["reasons"][0]["min_ns"] == 100 and d["reasons"][0]["max_ns"] == 700 and d["reasons"][0]["p99_ns"] == 700'
j 'd["reasons"][1]["avg_ns"] == 900 and d["reasons"][1]["percentiles_ns"]["p50"] == 900'
j '[(c["cpu"], c["count"]) for c in d["cpus_detail"]] == [(0, 7), (1, 4)]'
j 'sorted((v["vcpu"], v["pid"], v["pairs"]) for v in d["vcpus"]) == [(0, 7, 7), (1, 8, 4)]'
j '[t["latency_ns"] for t in d["top"]] == [1000, 900, 800] and d["top"][0]["reason"] == "io(0x7b)"' --top 3
j 'd["top"][0]["vcpu"] == 1 and d["top"][0]["cpu"] == 1 and d["top"][0]["time_ns"] == 9000000' --top 1
j 'd["histogram"] is None'

# Filters, alone and combined; the summary counts follow them.
j 'd["pairs"] == 11 and d["filtered_out"] == 8 and d["latency_ns"]["max"] == 1000' --reason io
j '[x["name"] for x in d["reasons"]] == ["io"]' --reason io
j 'd["latency_ns"]["max"] == 1000 and d["latency_ns"]["min"] == 50' --cpu 1
j 'd["latency_ns"]["max"] == 700' --vcpu 0
j 'd["latency_ns"]["min"] == 400 and d["latency_ns"]["max"] == 600' --from 3ms --to 5ms
j 'd["latency_ns"]["min"] == 900 and d["latency_ns"]["max"] == 1000' --reason io --from 8ms --to 9ms
j 'd["latency_ns"]["min"] == 50' --reason 0x9999
j 'd["latency_ns"]["max"] == 1000' --reason cpuid,IO
run vmtrace-report --reason nosuch a.vmt
expect_one_line_error vmtrace-report "a.vmt: unknown exit reason 'nosuch'"
run vmtrace-report --from 5ms --to 1ms a.vmt
[ "$rc" = 64 ] || fail "--to before --from: exit $rc"

# Histogram: 100 ns buckets, 5 of them: 100..400 in buckets 1..4, 50 in bucket 0, the rest over.
j 'd["histogram"]["bucket_ns"] == 100 and [c["counts"] for c in d["histogram"]["cpus"]] == [[0, 1, 1, 1, 1], [1, 0, 0, 0, 0]]' --histogram --bucket 100ns --buckets 5
j '[c["overflow"] for c in d["histogram"]["cpus"]] == [3, 3]' --bucket 100ns --buckets 5
# log2: 100 ns is in [64, 128), 300-500 ns in [256, 512)
j 'd["histogram"]["log2"] and d["histogram"]["cpus"][0]["counts"][6] == 1 and d["histogram"]["cpus"][0]["counts"][8] == 3' --histogram --log
run vmtrace-report --histogram --bucket 100ns --buckets 5 a.vmt
expect_rc 0 histogram
grep -q "^over: *3 *3 *6$" out.txt || { cat out.txt; fail "histogram overflow row"; }
grep -q "^100 ns *1 *0 *1 #" out.txt || fail "histogram row with bars"
grep -q "^count: *7 *4 *11$" out.txt || fail "histogram count row"
# 6 of 11 over the last bucket: a note with the over row's count and a width that holds the
# longest exit, which the report then shows in its rows (no overflow, no note); the advice
# on a line of its own, as the note would pass 120 columns
widths_ok out.txt || fail "histogram: lines over 120 columns"
unfold out.txt | grep -qx "Note: 6 of 11 pairs (54.5 %) are over the last bucket, which ends at 500 ns; --bucket \([0-9]*[num]*s\) would hold the longest (.*)" ||
	fail "histogram note: $(grep -A1 '^Note' out.txt)"
wide=$(unfold out.txt | sed -n 's/^Note: .* --bucket \([0-9a-z]*\) would.*/\1/p')
run vmtrace-report --histogram --bucket "$wide" --buckets 5 a.vmt
grep -q "^over: *0 *0 *0$" out.txt || fail "--bucket $wide: $(grep '^over' out.txt)"
grep -q '^Note' out.txt && fail "a note with nothing over"
# log2 buckets say how many of them would hold the longest: recounted from the script's own
# latencies (bucket b holds 2^b to 2^(b+1) - 1 ns, so N buckets end at 2^N ns), the note
# only past a tenth over; and --bucket, a width these buckets do not have, is refused
lognote() {	# lognote N: the note for N log2 buckets, or nothing
	python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
exits, lats = {}, []
for w in open("script.txt").read().split("\n"):
    f = w.split()
    if f and f[0] == "exit":
        exits[f[3]] = int(f[2])
    elif f and f[0] == "entry":
        lats.append(int(f[2]) - exits.pop(f[3]))
over = sum(l >= 1 << n for l in lats)
if over * 10 > len(lats):
    end = 1 << n
    end = "%d ns" % end if end < 1000 else "%.3f us" % (end / 1000)
    print("Note: %d of %d pairs (%.1f %%) are over the last bucket, which ends at %s; "
          "--buckets %d would hold the longest (%.3f us)" % (over, len(lats),
          int(over * 1000 / len(lats)) / 10, end, max(lats).bit_length(), max(lats) / 1000))
PY
}
for n in 3 9 10; do
	run vmtrace-report --log --buckets $n a.vmt
	expect_rc 0 "--log --buckets $n"
	want=$(lognote $n)
	# the note joined again (its advice on a line of its own past 120 columns)
	widths_ok out.txt || fail "--log --buckets $n: lines over 120 columns"
	[ "$(unfold out.txt | grep '^Note')" = "$want" ] ||
		fail "--log --buckets $n: '$(unfold out.txt | grep '^Note')', not '$want'"
	[ $n != 3 ] || [ -n "$want" ] || fail "the recount has no note for 3 log2 buckets"
done
run vmtrace-report --log --bucket 100ns a.vmt
expect_rc 64 "--log --bucket"
[ "$(head -1 err.txt)" = "vmtrace-report: --bucket sets the width of linear buckets; --log's are powers of 2 (--buckets sets how many)" ] ||
	fail "--log --bucket: $(cat err.txt)"
[ ! -s out.txt ] || fail "--log --bucket printed a report"
run vmtrace-report --hist-format=cyclictest --bucket 100ns --buckets 5 a.vmt
expect_rc 0 cyclictest
sed -n '/^# Histogram$/,$p' out.txt >cyc.txt
cat >cyc.expected <<'X'
# Histogram
000000 000000	000001
000001 000001	000000
000002 000001	000000
000003 000001	000000
000004 000001	000000
# Total: 000000004 000000001
# Min Latencies: 00001 00000
# Avg Latencies: 00004 00006
# Max Latencies: 00007 00010
# Histogram Overflows: 00003 00003
X
diff -u cyc.expected cyc.txt || fail "cyclictest layout"
# log2 buckets have no one width: min, avg and max in microseconds, cut (700 ns, 1000 ns)
run vmtrace-report --hist-format=cyclictest --log a.vmt
expect_rc 0 "cyclictest --log"
grep -qx "# Max Latencies: 00000 00001" out.txt || { cat out.txt; fail "cyclictest --log: max not in us"; }

# Text report: reason names with codes, the tables, the longest exits, the lists.
run vmtrace-report --threshold 850ns --around 5ms,1us a.vmt
expect_rc 0 "text report"
grep -q "^  cpuid(0x72) *7 " out.txt || fail "reason row"
grep -q "^  0x9999 *1 " out.txt || fail "unknown reason shown as its code"
grep -q "names from the recording's format" out.txt || fail "name source"
grep -q "^Longest exits:" out.txt || fail "top exits"
sed -n '/^Exits of at least/,/^$/p' out.txt | grep -c "io(0x7b)" | grep -qx 2 ||
	fail "threshold list: $(sed -n '/^Exits of at least/,$p' out.txt)"
sed -n '/^Events within/,$p' out.txt >near.txt
# its time in seconds to the ns, as its event lines give theirs (it read "of 5.000 ms")
grep -qx "Events within 1.000 us of 0.005000000 s:" near.txt || fail "--around: $(head -1 near.txt)"
grep -q "EXIT  vcpu 0 reason cpuid(0x72)" near.txt || fail "--around: exit"
grep -q "ENTRY vcpu 0 .*latency 600 ns" near.txt || fail "--around: entry with its latency"
[ "$(grep -c 'EXIT\|ENTRY' near.txt)" = 2 ] || fail "--around: only the events near 5 ms"
# a span that holds the exit but not its entry (600 ns later): the entry is listed all the
# same, with the latency the exit's line cannot give; nothing else after the span
run vmtrace-report --around 5ms,100ns a.vmt
expect_rc 0 "--around 5ms,100ns"
sed -n '/^Events within/,$p' out.txt >near2.txt
grep -q "EXIT  vcpu 0 reason cpuid(0x72)" near2.txt || fail "--around 100ns: the exit"
grep -q "ENTRY vcpu 0 .*latency 600 ns" near2.txt ||
	{ cat near2.txt; fail "--around 100ns: the exit's entry after the span"; }
[ "$(grep -c 'EXIT\|ENTRY' near2.txt)" = 2 ] || fail "--around 100ns: more than the exit and its entry"
run vmtrace-report --json --around 5ms,100ns a.vmt
[ "$(json out.txt '[(e["kind"], e.get("latency_ns")) for e in d["around"]]')" = \
  "[('exit', None), ('entry', 600)]" ] || fail "--around 100ns JSON: $(json out.txt 'd["around"]')"

# Verbose: every event, in order, entries with their latency.
run vmtrace-report -v a.vmt
expect_rc 0 verbose
[ "$(grep -c ' EXIT ' out.txt)" = 11 ] || fail "verbose exits"
[ "$(grep -c ' ENTRY ' out.txt)" = 11 ] || fail "verbose entries"
grep -q "0.009000000 cpu   1 pid       8 EXIT  vcpu 1 reason io(0x7b) rip" out.txt ||
	fail "verbose exit line"
grep -q "0.009001000 cpu   1 pid       8 ENTRY vcpu 1 rip .* latency 1.000 us" out.txt ||
	fail "verbose entry line"
exit 0
